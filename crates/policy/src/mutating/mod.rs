pub mod json_patch;
