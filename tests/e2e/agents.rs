//! End to end: many agents at once, the waiting indicator, status broadcasts, the wrapper.
