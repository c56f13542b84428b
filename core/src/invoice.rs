//! invoice (in progress).
