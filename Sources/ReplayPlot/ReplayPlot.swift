/// Placeholder: the replay plot is being written (issue 12, item 1).
public enum ReplayPlotPlaceholder {}
