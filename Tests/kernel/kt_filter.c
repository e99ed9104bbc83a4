/*
 * kt's commands for filter mode (see kt.c for the others):
 *
 *   kt send SOCKET COMMAND
 *       Connects to the daemon's Unix socket, reads `hello`, sends COMMAND
 *       (one JSON line) and prints the reply (the first `ok` or `error`
 *       line). Exit 0 on `ok`, 1 on `error`, 2 when it cannot talk.
 *
 *   kt session SOCKET
 *       One connection that stays open while stdin does: connects, reads
 *       `hello`, then sends each line read from stdin as a command (one
 *       JSON line) and prints, flushed, `hello` and every `ok` or `error`
 *       line the daemon sends (events are read and dropped). At the end of
 *       stdin it waits for the replies still due, closes the connection
 *       and exits: 0 when every reply was `ok`, 1 on an `error`, 2 when it
 *       cannot talk (no `hello` or reply within 10 s, or the daemon closed
 *       the connection). What a client sets until it goes (`filter_regions`)
 *       holds while stdin is open.
 *
 *   kt mtcheck FILE
 *       Reads an evemu recording (`transitiond record` of the filter's
 *       uinput copy) and checks it is well-formed multitouch protocol B:
 *       a tracking id begins in a free slot and ends in its slot, no id is
 *       active twice, BTN_TOUCH after each SYN_REPORT says whether a touch is
 *       down. Prints one line per touch (`touch N: x0=… y0=… t0=… dur=…`,
 *       raw axis units and seconds) and `touches=N open=M errors=K`; exit 0
 *       when there are no errors.
 *
 *   kt mtwatch NODE
 *       The same checks live, on a device node read until SIGINT/SIGTERM or
 *       until it goes; where the reader itself falls behind (its own
 *       SYN_DROPPED), it takes the device's state by ioctl and goes on
 *       (what ended and began meanwhile is not seen). That state may already
 *       hold events still queued for the reader (the kernel updates it
 *       before they are read): until the end of the first frame stamped
 *       after the ioctl, a tracking id that ends in a free slot or begins
 *       where the same id is down is taken as such a repeat, not an error.
 *       The summary line adds `events=N reader-drops=D resync-repeats=R`.
 *
 *   kt litouch FILE
 *       Reads what `libinput debug-events` printed and checks its touch
 *       sequences: a TOUCH_DOWN in a slot with no touch down, TOUCH_MOTION,
 *       TOUCH_UP and TOUCH_CANCEL in a slot with one, and every DOWN,
 *       MOTION, UP and CANCEL followed by a TOUCH_FRAME before any other
 *       event or the end. Prints one line per touch (`touch N: slot=S
 *       x0=… y0=… x1=… y1=… motions=M end=up|cancel|open`: its first and
 *       last positions as debug-events prints them, % of the screen) and
 *       `touches=N open=M errors=K frames=F`; exit 0 when there are no
 *       errors.
 *
 *   kt fwd-latency FRAMES [--major]
 *       Makes a touchscreen through uinput ("kt latency panel"), waits for
 *       the daemon's copy of it ("kt latency panel (transitiond filter)"),
 *       moves one finger in the middle of the panel for FRAMES frames at
 *       250 Hz and, for each frame, takes the copy's kernel timestamp of its
 *       position minus the moment it was written to the panel. Prints
 *       `events=N p50=Xus p99=Yus max=Zus`. With --major the panel also
 *       declares ABS_MT_TOUCH_MAJOR (0-255, 4 units/mm) and the finger is
 *       8 mm wide (so that a `palm_mm` rule has a width to read).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <linux/uinput.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "kt.h"

/* ------------------------------------------------------------------ send */

/* A stream connection to the daemon's Unix socket at path; -1 (said) when
 * there is none. */
static int unix_connect(const char *path)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof addr.sun_path) {
		fprintf(stderr, "kt: socket path too long: %s\n", path);
		return -1;
	}
	strcpy(addr.sun_path, path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof addr) < 0) {
		fprintf(stderr, "kt: cannot connect to %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

int cmd_send(const char *path, const char *command)
{
	int fd = unix_connect(path);
	if (fd < 0)
		return 2;
	struct timeval tv = {10, 0};
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	static char buf[1 << 16];
	size_t have = 0;
	int sent = 0;
	for (;;) {
		char *nl;
		while ((nl = memchr(buf, '\n', have)) != NULL) {
			*nl = 0;
			if (!sent && strstr(buf, "\"type\":\"hello\"")) {
				char line[4096];
				snprintf(line, sizeof line, "%s\n", command);
				if (write(fd, line, strlen(line)) < 0) {
					close(fd);
					return 2;
				}
				sent = 1;
			} else if (sent && (strstr(buf, "\"type\":\"ok\"") || strstr(buf, "\"type\":\"error\""))) {
				printf("%s\n", buf);
				int ok = strstr(buf, "\"type\":\"ok\"") != NULL;
				close(fd);
				return ok ? 0 : 1;
			}
			size_t used = (size_t)(nl - buf) + 1;
			memmove(buf, buf + used, have - used);
			have -= used;
		}
		if (have == sizeof buf)
			have = 0;
		ssize_t got = read(fd, buf + have, sizeof buf - have);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			fprintf(stderr, "kt: no reply from %s\n", path);
			close(fd);
			return 2;
		}
		have += (size_t)got;
	}
}

/* --------------------------------------------------------------- session */

/* Writes all of line to fd; 0 on success. */
static int write_all(int fd, const char *line, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, line, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		line += n;
		len -= (size_t)n;
	}
	return 0;
}

int cmd_session(const char *path)
{
	int fd = unix_connect(path);
	if (fd < 0)
		return 2;
	static char buf[1 << 16], in[1 << 14];
	size_t have = 0, in_have = 0;
	int hello = 0, stdin_open = 1, failed = 0;
	long sent = 0, replies = 0;
	while (stdin_open || replies < sent) {
		/* Commands go after `hello`; while one is due (or `hello`), 10 s at most. */
		struct pollfd p[2] = {{.fd = fd, .events = POLLIN}, {.fd = 0, .events = POLLIN}};
		int waiting = !hello || replies < sent;
		int n = poll(p, hello && stdin_open ? 2 : 1, waiting ? 10000 : -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			perror("kt: poll");
			close(fd);
			return 2;
		}
		if (n == 0) {
			fprintf(stderr, "kt: %s from %s within 10 s\n", hello ? "no reply" : "no hello", path);
			close(fd);
			return 2;
		}
		if (p[0].revents) {
			if (have == sizeof buf)
				have = 0; /* a line longer than the buffer: not one of ours */
			ssize_t got = read(fd, buf + have, sizeof buf - have);
			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0) {
				fprintf(stderr, "kt: %s closed the connection (%ld commands sent, %ld replies)\n", path, sent,
				        replies);
				close(fd);
				return 2;
			}
			have += (size_t)got;
			char *nl;
			while ((nl = memchr(buf, '\n', have)) != NULL) {
				*nl = 0;
				if (!hello && strstr(buf, "\"type\":\"hello\"")) {
					hello = 1;
					printf("%s\n", buf);
				} else if (hello && (strstr(buf, "\"type\":\"ok\"") || strstr(buf, "\"type\":\"error\""))) {
					printf("%s\n", buf);
					replies++;
					failed |= strstr(buf, "\"type\":\"error\"") != NULL;
				}
				size_t used = (size_t)(nl - buf) + 1;
				memmove(buf, buf + used, have - used);
				have -= used;
			}
		}
		if (hello && stdin_open && (p[1].revents & (POLLIN | POLLHUP | POLLERR))) {
			ssize_t got = read(0, in + in_have, sizeof in - in_have - 1);
			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0) {
				stdin_open = 0;
				continue;
			}
			in_have += (size_t)got;
			char *nl;
			while ((nl = memchr(in, '\n', in_have)) != NULL) {
				size_t len = (size_t)(nl - in) + 1;
				if (len > 1) {
					if (write_all(fd, in, len) < 0) {
						fprintf(stderr, "kt: cannot write to %s: %s\n", path, strerror(errno));
						close(fd);
						return 2;
					}
					sent++;
				}
				memmove(in, in + len, in_have - len);
				in_have -= len;
			}
			if (in_have == sizeof in - 1) {
				fprintf(stderr, "kt: a command longer than %zu bytes\n", sizeof in - 2);
				close(fd);
				return 2;
			}
		}
	}
	close(fd);
	return failed ? 1 : 0;
}

/* ------------------------------------------------------- mtcheck, mtwatch */

/* A checker of the multitouch protocol B rules, fed one event at a time. */
enum { SLOTS = 256 };

struct touch {
	long id;
	double t0, t1;
	long x0, y0;
	int has_x, has_y, ended;
};

struct mt {
	int active[SLOTS];    /* index into touches, or -1 */
	struct touch *touches;
	size_t count, cap;
	long slot, btn_touch;
	int errors;
	/* After the reader's own resync: events may repeat what the state by
	 * ioctl already holds (mtwatch); how many were taken as repeats. */
	int lenient;
	long repeats;
};

static void mt_init(struct mt *m)
{
	for (int i = 0; i < SLOTS; i++)
		m->active[i] = -1;
	m->cap = 64;
	m->count = 0;
	m->touches = calloc(m->cap, sizeof *m->touches);
	m->slot = 0;
	m->btn_touch = 0;
	m->errors = 0;
	m->lenient = 0;
	m->repeats = 0;
}

static void mt_error(struct mt *m, const char *where, const char *what)
{
	if (m->errors < 20)
		printf("error: %s: %s\n", where, what);
	m->errors++;
}

static void mt_begin(struct mt *m, long slot, long id, double t)
{
	if (m->count == m->cap) {
		m->cap *= 2;
		m->touches = realloc(m->touches, m->cap * sizeof *m->touches);
	}
	m->touches[m->count] = (struct touch){.id = id, .t0 = t};
	m->active[slot] = (int)m->count++;
}

static void mt_event(struct mt *m, const char *where, double t, unsigned type, unsigned code, long value)
{
	char what[160];
	if (type == EV_ABS && code == ABS_MT_SLOT) {
		if (value < 0 || value >= SLOTS) {
			snprintf(what, sizeof what, "slot %ld out of range", value);
			mt_error(m, where, what);
			m->slot = -1;
		} else {
			m->slot = value;
		}
	} else if (type == EV_ABS && code == ABS_MT_TRACKING_ID && m->slot >= 0) {
		if (m->lenient && (value >= 0 ? m->active[m->slot] >= 0 && m->touches[m->active[m->slot]].id == value
		                              : m->active[m->slot] < 0)) {
			m->repeats++;
			return;
		}
		if (value >= 0) {
			if (m->active[m->slot] >= 0) {
				snprintf(what, sizeof what, "slot %ld begins tracking id %ld while id %ld is down there", m->slot,
				         value, m->touches[m->active[m->slot]].id);
				mt_error(m, where, what);
			}
			for (int i = 0; i < SLOTS; i++)
				if (m->active[i] >= 0 && i != m->slot && m->touches[m->active[i]].id == value) {
					snprintf(what, sizeof what, "tracking id %ld is down in slots %d and %ld", value, i, m->slot);
					mt_error(m, where, what);
				}
			mt_begin(m, m->slot, value, t);
		} else if (m->active[m->slot] < 0) {
			snprintf(what, sizeof what, "slot %ld ends a touch that is not down", m->slot);
			mt_error(m, where, what);
		} else {
			m->touches[m->active[m->slot]].ended = 1;
			m->touches[m->active[m->slot]].t1 = t;
			m->active[m->slot] = -1;
		}
	} else if (type == EV_ABS && (code == ABS_MT_POSITION_X || code == ABS_MT_POSITION_Y) && m->slot >= 0) {
		if (m->active[m->slot] >= 0) {
			struct touch *tc = &m->touches[m->active[m->slot]];
			if (code == ABS_MT_POSITION_X && !tc->has_x) {
				tc->x0 = value;
				tc->has_x = 1;
			}
			if (code == ABS_MT_POSITION_Y && !tc->has_y) {
				tc->y0 = value;
				tc->has_y = 1;
			}
		}
	} else if (type == EV_KEY && code == BTN_TOUCH) {
		m->btn_touch = value;
	} else if (type == EV_SYN && code == SYN_REPORT) {
		int down = 0;
		for (int i = 0; i < SLOTS; i++)
			down += m->active[i] >= 0;
		if ((down > 0) != (m->btn_touch != 0)) {
			snprintf(what, sizeof what, "BTN_TOUCH %ld with %d touch(es) down", m->btn_touch, down);
			mt_error(m, where, what);
		}
	}
}

static int mt_report(struct mt *m, const char *extra)
{
	int open = 0;
	for (size_t i = 0; i < m->count; i++) {
		struct touch *tc = &m->touches[i];
		if (!tc->ended)
			open++;
		printf("touch %zu: x0=%ld y0=%ld t0=%.6f dur=%s%.6f\n", i + 1, tc->x0, tc->y0, tc->t0,
		       tc->ended ? "" : "open,", tc->ended ? tc->t1 - tc->t0 : 0.0);
	}
	printf("touches=%zu open=%d errors=%d%s\n", m->count, open, m->errors, extra);
	free(m->touches);
	return m->errors == 0 ? 0 : 1;
}

int cmd_mtcheck(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "kt: cannot read %s\n", path);
		return 2;
	}
	struct mt m;
	mt_init(&m);
	char line[512], where[64];
	long line_no = 0;
	while (fgets(line, sizeof line, f)) {
		line_no++;
		double t;
		unsigned type, code;
		long value;
		if (sscanf(line, "E: %lf %x %x %ld", &t, &type, &code, &value) != 4)
			continue;
		snprintf(where, sizeof where, "line %ld", line_no);
		mt_event(&m, where, t, type, code, value);
	}
	fclose(f);
	return mt_report(&m, "");
}

static volatile sig_atomic_t watch_stop;
static void on_watch_stop(int sig)
{
	(void)sig;
	watch_stop = 1;
}

/* After the reader's own SYN_DROPPED: the device's state now, by ioctl (what
 * ended and began while events were lost is not seen). */
static void mt_resync(struct mt *m, int fd, double t)
{
	struct {
		__u32 code;
		__s32 values[SLOTS];
	} slots = {.code = ABS_MT_TRACKING_ID};
	unsigned char keys[KEY_MAX / 8 + 1] = {0};
	struct input_absinfo slot;
	if (ioctl(fd, EVIOCGMTSLOTS(sizeof slots), &slots) < 0 || ioctl(fd, EVIOCGKEY(sizeof keys), keys) < 0
	    || ioctl(fd, EVIOCGABS(ABS_MT_SLOT), &slot) < 0)
		return;
	/* Only the device's slots are filled in. */
	int count = slot.maximum + 1 < SLOTS ? slot.maximum + 1 : SLOTS;
	for (int i = 0; i < SLOTS; i++) {
		if (i >= count) {
			slots.values[i] = -1;
		}
		long id = slots.values[i];
		if (m->active[i] >= 0 && (id < 0 || m->touches[m->active[i]].id != id)) {
			m->touches[m->active[i]].ended = 1;
			m->touches[m->active[i]].t1 = t;
			m->active[i] = -1;
		}
		if (id >= 0 && m->active[i] < 0)
			mt_begin(m, i, id, t);
	}
	m->btn_touch = (keys[BTN_TOUCH / 8] >> (BTN_TOUCH % 8)) & 1;
	m->slot = slot.value;
}

int cmd_mtwatch(const char *node)
{
	int fd = open(node, O_RDONLY | O_CLOEXEC);
	int clock = CLOCK_MONOTONIC;
	if (fd < 0 || ioctl(fd, EVIOCSCLOCKID, &clock) < 0) {
		fprintf(stderr, "kt: cannot read %s: %s\n", node, strerror(errno));
		return 2;
	}
	struct sigaction sa = {.sa_handler = on_watch_stop};
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	fprintf(stderr, "kt: watching %s\n", node);
	struct mt m;
	mt_init(&m);
	static struct input_event got[4096];
	long events = 0, drops = 0;
	int dropping = 0;
	double synced = 0; /* CLOCK_MONOTONIC when the last resync's ioctls returned */
	char where[64];
	while (!watch_stop) {
		ssize_t bytes = read(fd, got, sizeof got);
		if (bytes < 0 && errno == EINTR)
			continue;
		if (bytes <= 0)
			break;
		for (ssize_t i = 0; i < bytes / (ssize_t)sizeof got[0]; i++) {
			struct input_event *e = &got[i];
			double t = (double)e->input_event_sec + (double)e->input_event_usec * 1e-6;
			events++;
			if (e->type == EV_SYN && e->code == SYN_DROPPED) {
				dropping = 1;
				drops++;
				continue;
			}
			if (dropping) {
				if (e->type == EV_SYN && e->code == SYN_REPORT) {
					dropping = 0;
					mt_resync(&m, fd, t);
					struct timespec now;
					clock_gettime(CLOCK_MONOTONIC, &now);
					synced = (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
					m.lenient = 1;
				}
				continue;
			}
			snprintf(where, sizeof where, "event %ld", events);
			mt_event(&m, where, t, e->type, e->code, e->value);
			/* The first frame stamped after the ioctls returned may still
			 * have had events in the state they read; the next cannot. */
			if (m.lenient && e->type == EV_SYN && e->code == SYN_REPORT && t > synced)
				m.lenient = 0;
		}
	}
	close(fd);
	char extra[128];
	snprintf(extra, sizeof extra, " events=%ld reader-drops=%ld resync-repeats=%ld", events, drops, m.repeats);
	return mt_report(&m, extra);
}

/* -------------------------------------------------------------- litouch */

/* One touch of libinput's output: its slot, first and last positions. */
struct litouch {
	int slot;
	double x0, y0, x1, y1;
	long motions;
	const char *end;
};

__attribute__((format(printf, 3, 4))) static void li_error(int *errors, long line_no, const char *format, ...)
{
	if (*errors < 20) {
		va_list args;
		va_start(args, format);
		printf("error: line %ld: ", line_no);
		vprintf(format, args);
		printf("\n");
		va_end(args);
	}
	(*errors)++;
}

int cmd_litouch(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "kt: cannot read %s\n", path);
		return 2;
	}
	int active[SLOTS];
	for (int i = 0; i < SLOTS; i++)
		active[i] = -1;
	size_t count = 0, cap = 64;
	struct litouch *touches = calloc(cap, sizeof *touches);
	int errors = 0, pending = 0;
	long frames = 0, line_no = 0, pending_line = 0;
	char line[1024];
	while (fgets(line, sizeof line, f)) {
		line_no++;
		char device[64], type[64];
		int used = 0;
		/* `-event5   TOUCH_DOWN   +1.234s  0 (0) 60.00/20.00 (…mm)`; the
		 * leading `-` marks a line whose device differs from the line before's. */
		const char *p = line + (line[0] == '-' || line[0] == ' ');
		if (sscanf(p, "%63s %63s %n", device, type, &used) != 2 || strncmp(device, "event", 5) != 0)
			continue;
		int down = strcmp(type, "TOUCH_DOWN") == 0, motion = strcmp(type, "TOUCH_MOTION") == 0;
		int up = strcmp(type, "TOUCH_UP") == 0, cancel = strcmp(type, "TOUCH_CANCEL") == 0;
		if (strcmp(type, "TOUCH_FRAME") == 0) {
			pending = 0;
			frames++;
			continue;
		}
		if (!down && !motion && !up && !cancel) {
			if (pending)
				li_error(&errors, line_no, "%s before the TOUCH_FRAME of line %ld's touch event", type, pending_line);
			pending = 0;
			continue;
		}
		int slot = -1, seat_slot = -1;
		double x = 0, y = 0;
		int n = sscanf(p + used, "%*s %d (%d) %lf/%lf", &slot, &seat_slot, &x, &y);
		if (n < 2 || ((down || motion) && n < 4) || slot < 0 || slot >= SLOTS) {
			li_error(&errors, line_no, "cannot read %s's slot and position", type);
			continue;
		}
		pending = 1;
		pending_line = line_no;
		if (down) {
			if (active[slot] >= 0)
				li_error(&errors, line_no, "TOUCH_DOWN in slot %d while touch %d is down there", slot, active[slot] + 1);
			if (count == cap) {
				cap *= 2;
				touches = realloc(touches, cap * sizeof *touches);
			}
			touches[count] = (struct litouch){.slot = slot, .x0 = x, .y0 = y, .x1 = x, .y1 = y, .end = "open"};
			active[slot] = (int)count++;
		} else if (active[slot] < 0) {
			li_error(&errors, line_no, "%s in slot %d, where no touch is down", type, slot);
		} else if (motion) {
			touches[active[slot]].x1 = x;
			touches[active[slot]].y1 = y;
			touches[active[slot]].motions++;
		} else {
			touches[active[slot]].end = up ? "up" : "cancel";
			active[slot] = -1;
		}
	}
	fclose(f);
	if (pending)
		li_error(&errors, line_no, "the touch event of line %ld has no TOUCH_FRAME", pending_line);
	int open = 0;
	for (size_t i = 0; i < count; i++) {
		struct litouch *t = &touches[i];
		open += strcmp(t->end, "open") == 0;
		printf("touch %zu: slot=%d x0=%.2f y0=%.2f x1=%.2f y1=%.2f motions=%ld end=%s\n", i + 1, t->slot, t->x0,
		       t->y0, t->x1, t->y1, t->motions, t->end);
	}
	printf("touches=%zu open=%d errors=%d frames=%ld\n", count, open, errors, frames);
	free(touches);
	return errors == 0 ? 0 : 1;
}

/* ----------------------------------------------------------- fwd-latency */

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int abs_setup(int fd, unsigned code, int min, int max, int resolution)
{
	struct uinput_abs_setup a = {.code = (__u16)code};
	a.absinfo.minimum = min;
	a.absinfo.maximum = max;
	a.absinfo.resolution = resolution;
	if (ioctl(fd, UI_SET_ABSBIT, code) < 0)
		return -1;
	return ioctl(fd, UI_ABS_SETUP, &a);
}

static void emit(struct input_event *buf, int *n, unsigned type, unsigned code, int value)
{
	buf[*n] = (struct input_event){.type = (__u16)type, .code = (__u16)code, .value = value};
	(*n)++;
}

/* The event node whose name is `name`, or -1. */
static int find_node(const char *name, char *node, size_t size)
{
	for (int i = 0; i < 64; i++) {
		char path[64], got[256] = {0};
		snprintf(path, sizeof path, "/dev/input/event%d", i);
		int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		int ok = ioctl(fd, EVIOCGNAME(sizeof got - 1), got) >= 0 && strcmp(got, name) == 0;
		close(fd);
		if (ok) {
			snprintf(node, size, "%s", path);
			return 0;
		}
	}
	return -1;
}

static int compare_doubles(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int cmd_fwd_latency(long frames, int major)
{
	if (frames < 1 || frames > 3000) {
		fprintf(stderr, "kt: fwd-latency takes 1 to 3000 frames\n");
		return 2;
	}
	int u = open("/dev/uinput", O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (u < 0) {
		fprintf(stderr, "kt: /dev/uinput: %s\n", strerror(errno));
		return 2;
	}
	ioctl(u, UI_SET_EVBIT, EV_SYN);
	ioctl(u, UI_SET_EVBIT, EV_KEY);
	ioctl(u, UI_SET_EVBIT, EV_ABS);
	ioctl(u, UI_SET_KEYBIT, BTN_TOUCH);
	ioctl(u, UI_SET_KEYBIT, BTN_TOOL_FINGER);
	ioctl(u, UI_SET_PROPBIT, INPUT_PROP_DIRECT);
	if (abs_setup(u, ABS_X, 0, 4095, 16) < 0 || abs_setup(u, ABS_Y, 0, 2303, 16) < 0
	    || abs_setup(u, ABS_MT_SLOT, 0, 9, 0) < 0 || abs_setup(u, ABS_MT_POSITION_X, 0, 4095, 16) < 0
	    || abs_setup(u, ABS_MT_POSITION_Y, 0, 2303, 16) < 0 || abs_setup(u, ABS_MT_TRACKING_ID, 0, 65535, 0) < 0
	    || (major && abs_setup(u, ABS_MT_TOUCH_MAJOR, 0, 255, 4) < 0)) {
		fprintf(stderr, "kt: uinput axis setup: %s\n", strerror(errno));
		return 2;
	}
	struct uinput_setup setup = {.id = {.bustype = BUS_USB, .vendor = 0x1234, .product = 0x5678}};
	snprintf(setup.name, sizeof setup.name, "kt latency panel");
	if (ioctl(u, UI_DEV_SETUP, &setup) < 0 || ioctl(u, UI_DEV_CREATE) < 0) {
		fprintf(stderr, "kt: cannot create the uinput panel: %s\n", strerror(errno));
		return 2;
	}
	char node[64];
	double deadline = mono() + 20;
	while (find_node("kt latency panel (transitiond filter)", node, sizeof node) < 0) {
		if (mono() > deadline) {
			fprintf(stderr, "kt: the daemon made no copy of the panel within 20 s\n");
			ioctl(u, UI_DEV_DESTROY);
			return 1;
		}
		usleep(20000);
	}
	int c = open(node, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	int clock = CLOCK_MONOTONIC;
	if (c < 0 || ioctl(c, EVIOCSCLOCKID, &clock) < 0) {
		fprintf(stderr, "kt: cannot read %s: %s\n", node, strerror(errno));
		ioctl(u, UI_DEV_DESTROY);
		return 2;
	}
	fprintf(stderr, "kt: panel copy %s\n", node);
	usleep(300000);   /* the daemon's attach settles */

	double *sent = calloc((size_t)frames + 1, sizeof *sent);
	double *samples = calloc((size_t)frames + 1, sizeof *samples);
	size_t n = 0;
	const int base = 1000;
	double next = mono();
	struct input_event batch[16], got[256];
	for (long k = 0; k <= frames + 125; k++) {
		if (k <= frames) {
			int m = 0;
			if (k == 0) {
				emit(batch, &m, EV_ABS, ABS_MT_SLOT, 0);
				emit(batch, &m, EV_ABS, ABS_MT_TRACKING_ID, 1);
				emit(batch, &m, EV_KEY, BTN_TOUCH, 1);
				emit(batch, &m, EV_KEY, BTN_TOOL_FINGER, 1);
				emit(batch, &m, EV_ABS, ABS_MT_POSITION_Y, 1100);
				if (major)
					emit(batch, &m, EV_ABS, ABS_MT_TOUCH_MAJOR, 32);
				emit(batch, &m, EV_ABS, ABS_Y, 1100);
			}
			emit(batch, &m, EV_ABS, ABS_MT_POSITION_X, base + (int)k);
			emit(batch, &m, EV_ABS, ABS_X, base + (int)k);
			if (k == frames) {
				emit(batch, &m, EV_ABS, ABS_MT_TRACKING_ID, -1);
				emit(batch, &m, EV_KEY, BTN_TOUCH, 0);
				emit(batch, &m, EV_KEY, BTN_TOOL_FINGER, 0);
			}
			emit(batch, &m, EV_SYN, SYN_REPORT, 0);
			sent[k] = mono();
			if (write(u, batch, (size_t)m * sizeof batch[0]) < 0) {
				fprintf(stderr, "kt: write to the panel: %s\n", strerror(errno));
				break;
			}
		}
		next += 0.004;
		for (;;) {
			double wait = next - mono();
			struct pollfd p = {.fd = c, .events = POLLIN};
			int r = poll(&p, 1, wait > 0 ? (int)(wait * 1000) + 1 : 0);
			if (r > 0) {
				ssize_t bytes = read(c, got, sizeof got);
				for (ssize_t i = 0; bytes > 0 && i < bytes / (ssize_t)sizeof got[0]; i++) {
					struct input_event *e = &got[i];
					if (e->type == EV_ABS && e->code == ABS_MT_POSITION_X && e->value >= base
					    && e->value <= base + frames) {
						double at = (double)e->input_event_sec + (double)e->input_event_usec * 1e-6;
						samples[n++] = at - sent[e->value - base];
					}
				}
			}
			if (mono() >= next)
				break;
		}
	}
	ioctl(u, UI_DEV_DESTROY);
	close(u);
	close(c);
	if (n == 0) {
		printf("events=0\n");
		return 1;
	}
	qsort(samples, n, sizeof *samples, compare_doubles);
	printf("events=%zu p50=%.0fus p99=%.0fus max=%.0fus\n", n, samples[n / 2] * 1e6,
	       samples[(size_t)((double)(n - 1) * 0.99)] * 1e6, samples[n - 1] * 1e6);
	return 0;
}
