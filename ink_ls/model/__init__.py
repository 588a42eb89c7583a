"""Model access: the interface the loop drives, and one client over httpx for every provider
(Chat Completions, OpenAI Responses, Anthropic Messages).

Knows nothing of tools' internals: it gets tool schemas and history, returns messages.
"""
