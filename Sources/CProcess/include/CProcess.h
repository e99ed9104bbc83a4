// What the daemon asks of its process that Swift cannot call itself:
// prctl(2) is variadic, which Swift does not import.
#ifndef TRANSITIOND_CPROCESS_H
#define TRANSITIOND_CPROCESS_H

/// No transparent huge pages for this process and its threads from now on
/// (PR_SET_THP_DISABLE): 0, or -1 with errno.
int transitiond_disable_huge_pages(void);

#endif
