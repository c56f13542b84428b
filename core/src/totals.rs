//! totals (in progress).
