"""Reading sources: files and notebooks to text, text to trees (libcst, the quick tree), walks over them."""
