"""Ranges at work: the reference model over many input vectors at once (`engine`), one input at a time
(`sensitivity`) and Monte Carlo draws of all of them (`simulate`)."""
