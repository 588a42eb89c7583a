"""The bottom layer every package shares: messages and content blocks, the cancel signal and its
one race helper, settings, and the tool contract. Imports nothing else from ink_ls."""
