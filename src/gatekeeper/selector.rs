//! HELPER-OWNED (match helper)
