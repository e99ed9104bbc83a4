// The C API of libevdev (libevdev-dev), for the EvdevInput module:
// device reading and description, and uinput devices for the test tool.
#ifndef TRANSITIOND_CLIBEVDEV_SHIM_H
#define TRANSITIOND_CLIBEVDEV_SHIM_H

#include <libevdev/libevdev.h>
#include <libevdev/libevdev-uinput.h>

#endif
