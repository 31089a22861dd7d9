"""Opening untrusted .xlsx files safely, evaluating their formulas, reading formula text."""
