"""The sheet kit the line items build their sheets with, below them: the workbook as plain data
(`grid`), calculation rows (`rows`), styles, input names, the scenario switch's names, market and
input labels, the Cash flow sheet's row kit, the hidden plan sheet. It imports no line item;
`workbook/` assembles the whole workbook from the items' sheets on top of it."""
