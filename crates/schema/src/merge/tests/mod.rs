//! Unit tests of the merge on small CRD-like schemas, and the upstream `smd_test` cases
//! against the built-in apps/v1 Deployment.

mod smd_cases;
mod unit;
