import TransitionEngine

/// Placeholder: the touch filter is being written (see issue 11, item 3).
public enum TouchFilterPlaceholder {}
