"""MCP: the user's Model Context Protocol servers as tools of the agent (config, connections,
tools, the per-workspace hub). Imports core only; the agent factory and front ends use it."""
