//! codes (in progress).
