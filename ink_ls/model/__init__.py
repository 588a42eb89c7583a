"""Model access: the interface the loop drives, and the OpenAI-compatible client over httpx.

Knows nothing of tools' internals: it gets tool schemas and history, returns messages.
"""
