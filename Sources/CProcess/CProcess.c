#include "CProcess.h"
#include <sys/prctl.h>

int transitiond_disable_huge_pages(void) {
    return prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
}
