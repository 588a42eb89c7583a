"""The wire layer: method-name constants, pydantic params/results/updates, error codes.

Only shapes live here; no pygls, no agent logic.
"""
