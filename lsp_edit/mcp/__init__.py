"""`lsp-edit mcp`: the symbol-editing tools, served to coding agents over the Model
Context Protocol (docs/mcp.md).

The tools themselves (names, descriptions, argument schemas) are `lsp_edit.tools`,
which `lspEdit.ask` offers too; `toolbox` is what each does, over the engine, and
where edits go (the user's editor, through `lsp_edit.bridge`, or the disk); `stdio`
serves them with the MCP SDK, which only this command imports.
"""
