//! HELPER-OWNED (path helper): pathTests.
