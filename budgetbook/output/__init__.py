"""Every command's outputs (table, CSV, Markdown, JSON) and the terminal-safety guard they all go through."""
