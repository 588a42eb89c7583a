"""A development tool: exports the `ink/*` protocol as JSON Schema and generates the editors'
TypeScript and Lua types from it (`scripts/gen-protocol`). Never imported by the server.
"""
