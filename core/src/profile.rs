//! profile (in progress).
