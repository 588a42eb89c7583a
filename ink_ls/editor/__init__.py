"""Glue between the agent and an editor client: open buffers, approvals, progress, updates.

No pygls here: the editor is reached through the small `EditorClient` interface, so this
package runs and tests without a server.
"""
