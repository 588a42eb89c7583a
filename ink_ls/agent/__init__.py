"""The agent core: messages, the one-call pipeline, the batch scheduler, cancellation, the loop.

Plain asyncio + pydantic; nothing here imports pygls or knows about LSP.
"""
