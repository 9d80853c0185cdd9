//! HELPER-OWNED (image helper)
