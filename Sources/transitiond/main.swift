print("transitiond: not yet")
