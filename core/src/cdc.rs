//! cdc (in progress).
