"""`python -m budgetbook`: the same command line as the `budgetbook` script."""

from .cli import run

if __name__ == "__main__":
    run()
