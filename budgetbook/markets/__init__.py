"""Market kinds: one module each (rented at a price, hybrid); `registry` lists them and picks a market's kind."""
