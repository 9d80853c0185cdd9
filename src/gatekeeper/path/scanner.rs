//! HELPER-OWNED (path helper): the token scanner.
