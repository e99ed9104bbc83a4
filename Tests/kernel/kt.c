/*
 * kt: the small helper of the real-kernel test tier (Tests/kernel/). Built on
 * the host with `gcc -static` and copied into the guest, where only busybox,
 * transitiond and this exist.
 *
 *   kt compare REFERENCE LIVE
 *       Compares two NDJSON event streams of transitiond: the reference
 *       (`replay --fast --json` on the host) and a live one (a subscriber in
 *       the guest, or a `replay --fast` of a recording made in the guest).
 *       Per transition (by name): the same lifecycle (began, ended with the
 *       same decision and reason, finished or cancelled, in the same order);
 *       in every interaction (began ... ended) the same progress values of
 *       `began`/`changed` within 1e-6, after dropping a value equal to the one
 *       before it (an empty kernel frame emits nothing, a recording's frame
 *       may emit a `changed` with the same progress); the `ended` progress
 *       within 1e-6 and the `ended` (release) velocity within 10 % (plus
 *       1e-3 so that 0 matches 0). `animating` lines, times, seq and values
 *       are not compared: they follow from the above and the clock.
 *       Prints a one-line summary, or the first difference; exit 0 / 1.
 *
 *   kt ws PORT [COMMAND]
 *       A WebSocket client of the daemon on 127.0.0.1:PORT (the service's
 *       socket-activated WebSocket listener): the opening handshake, then
 *       prints the first text message (hello); with COMMAND (a JSON line),
 *       sends it as one masked text message and prints the next message.
 *       Exit 0 when the handshake gave 101 and the messages came, else 1.
 *
 *   kt lifecycle FILE
 *       Prints every transition's life on one line, e.g.
 *       `back: began ended(cancel,device-lost) cancelled`, and exits 1 if
 *       one is left half-way (a began without its ended and its finished or
 *       cancelled), out of order, or if the stream holds an `error` line.
 *
 *   kt latency SOCKET [SECONDS]
 *       Connects to the daemon's socket and, for every `began`, `changed`
 *       and `ended` line (the events an input frame produces), records
 *       CLOCK_MONOTONIC at receipt minus the event's `time` (the kernel's
 *       CLOCK_MONOTONIC timestamp of the input). Stops on SIGTERM/SIGINT,
 *       when the daemon closes the connection, or after SECONDS (default
 *       120), and prints `events=N p50=Xus p99=Yus max=Zus`.
 *
 *   kt wait FILE STRING SECONDS [COUNT]
 *       Waits until COUNT (default 1) lines of FILE contain STRING; exit 0,
 *       or 1 after SECONDS.
 *
 *   kt count FILE STRING
 *       Prints how many lines of FILE contain STRING.
 *
 *   kt send, kt session, kt mtcheck, kt mtwatch, kt litouch, kt fwd-latency:
 *   filter mode (kt_filter.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/time.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <time.h>
#include <unistd.h>

#include "kt.h"

/* ---------------------------------------------------------------- lines */

/* Reads a whole file; NULL if it cannot. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap + 1);
	size_t n;
	while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap) {
			cap *= 2;
			buf = realloc(buf, cap + 1);
		}
	}
	fclose(f);
	if (buf)
		buf[len] = 0;
	return buf;
}

/* ------------------------------------------------ top-level JSON fields */

struct field {
	const char *start; /* the value's first byte */
	const char *end;   /* one past its last byte */
};

/* Skips a JSON string starting at the opening quote; returns one past the
 * closing quote (or the end of the line). */
static const char *skip_string(const char *p, const char *end)
{
	p++;
	while (p < end && *p != '"') {
		if (*p == '\\' && p + 1 < end)
			p++;
		p++;
	}
	return p < end ? p + 1 : end;
}

/* Skips one JSON value (string, number, literal, object or array). */
static const char *skip_value(const char *p, const char *end)
{
	if (p < end && *p == '"')
		return skip_string(p, end);
	if (p < end && (*p == '{' || *p == '[')) {
		int depth = 0;
		while (p < end) {
			if (*p == '"') {
				p = skip_string(p, end);
				continue;
			}
			if (*p == '{' || *p == '[')
				depth++;
			else if (*p == '}' || *p == ']') {
				depth--;
				if (depth == 0)
					return p + 1;
			}
			p++;
		}
		return end;
	}
	while (p < end && *p != ',' && *p != '}' && *p != ']' && *p != ' ')
		p++;
	return p;
}

/* Finds the value of KEY among the top-level members of the object on the
 * line [p, end). The daemon writes compact JSON (no spaces), but spaces
 * between tokens are tolerated. */
static int find_field(const char *p, const char *end, const char *key, struct field *out)
{
	size_t klen = strlen(key);
	while (p < end && *p != '{')
		p++;
	if (p == end)
		return 0;
	p++;
	for (;;) {
		while (p < end && (*p == ' ' || *p == ','))
			p++;
		if (p >= end || *p != '"')
			return 0;
		const char *kstart = p + 1;
		const char *kend = skip_string(p, end) - 1;
		p = kend + 1;
		while (p < end && (*p == ' ' || *p == ':'))
			p++;
		const char *vstart = p;
		const char *vend = skip_value(p, end);
		if ((size_t)(kend - kstart) == klen && memcmp(kstart, key, klen) == 0) {
			out->start = vstart;
			out->end = vend;
			return 1;
		}
		p = vend;
	}
}

/* The string value of KEY (without quotes, escapes kept) into BUF. */
static int string_field(const char *p, const char *end, const char *key, char *buf, size_t size)
{
	struct field f;
	if (!find_field(p, end, key, &f) || f.start >= f.end || *f.start != '"')
		return 0;
	size_t n = (size_t)(f.end - f.start) - 2;
	if (n >= size)
		n = size - 1;
	memcpy(buf, f.start + 1, n);
	buf[n] = 0;
	return 1;
}

static int number_field(const char *p, const char *end, const char *key, double *value)
{
	struct field f;
	char tmp[64];
	if (!find_field(p, end, key, &f))
		return 0;
	size_t n = (size_t)(f.end - f.start);
	if (n == 0 || n >= sizeof tmp)
		return 0;
	memcpy(tmp, f.start, n);
	tmp[n] = 0;
	char *stop;
	*value = strtod(tmp, &stop);
	return *stop == 0;
}

/* ------------------------------------------------------------- events */

enum kind { K_OTHER, K_HELLO, K_BEGAN, K_CHANGED, K_ENDED, K_ANIMATING, K_FINISHED, K_CANCELLED, K_ERROR };

struct event {
	enum kind kind;
	char transition[64];
	double progress, velocity, time;
	char decision[16], reason[32];
	int line;
};

static enum kind kind_of(const char *type)
{
	static const struct {
		const char *name;
		enum kind kind;
	} kinds[] = {
		{"hello", K_HELLO}, {"began", K_BEGAN}, {"changed", K_CHANGED}, {"ended", K_ENDED},
		{"animating", K_ANIMATING}, {"finished", K_FINISHED}, {"cancelled", K_CANCELLED},
		{"error", K_ERROR},
	};
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (strcmp(type, kinds[i].name) == 0)
			return kinds[i].kind;
	return K_OTHER;
}

/* Parses one line; returns 0 for a line that is not an object with a type. */
static int parse_event(const char *p, const char *end, int line, struct event *e)
{
	char type[32];
	memset(e, 0, sizeof *e);
	e->line = line;
	if (!string_field(p, end, "type", type, sizeof type))
		return 0;
	e->kind = kind_of(type);
	string_field(p, end, "transition", e->transition, sizeof e->transition);
	number_field(p, end, "progress", &e->progress);
	number_field(p, end, "velocity", &e->velocity);
	number_field(p, end, "time", &e->time);
	string_field(p, end, "decision", e->decision, sizeof e->decision);
	string_field(p, end, "reason", e->reason, sizeof e->reason);
	return 1;
}

struct stream {
	struct event *events;
	size_t count;
	int errors; /* `error` lines */
	int first_error_line;
};

static int load_stream(const char *path, struct stream *s)
{
	char *text = slurp(path);
	if (!text) {
		fprintf(stderr, "kt: cannot read %s: %s\n", path, strerror(errno));
		return 0;
	}
	size_t cap = 1024;
	memset(s, 0, sizeof *s);
	s->events = malloc(cap * sizeof *s->events);
	int line = 0;
	for (char *p = text; *p;) {
		char *nl = strchr(p, '\n');
		char *end = nl ? nl : p + strlen(p);
		line++;
		struct event e;
		if (parse_event(p, end, line, &e)) {
			if (e.kind == K_ERROR) {
				if (!s->errors++)
					s->first_error_line = line;
			} else if (e.kind != K_HELLO && e.kind != K_OTHER) {
				if (s->count == cap) {
					cap *= 2;
					s->events = realloc(s->events, cap * sizeof *s->events);
				}
				s->events[s->count++] = e;
			}
		}
		p = nl ? nl + 1 : end;
	}
	free(text);
	return 1;
}

/* ------------------------------------------------ lives of transitions */

/* One interaction: began ... ended. */
struct interaction {
	double *progress; /* began/changed values, repeats dropped */
	size_t count, cap;
	int ended;
	double end_progress, end_velocity;
	char decision[16], reason[32];
};

/* The history of one transition name in a stream. */
struct life {
	char name[64];
	char tokens[8192]; /* "began ended(finish,released) finished ..." */
	struct interaction *interactions;
	size_t count, cap;
	enum { IDLE, INTERACTING, ANIMATING } state;
	int broken;      /* an event out of order */
	char why[160];   /* the first such problem */
};

struct lives {
	struct life *items;
	size_t count;
};

static struct life *life_of(struct lives *ls, const char *name)
{
	for (size_t i = 0; i < ls->count; i++)
		if (strcmp(ls->items[i].name, name) == 0)
			return &ls->items[i];
	ls->items = realloc(ls->items, (ls->count + 1) * sizeof *ls->items);
	struct life *l = &ls->items[ls->count++];
	memset(l, 0, sizeof *l);
	snprintf(l->name, sizeof l->name, "%s", name);
	return l;
}

static void token(struct life *l, const char *text)
{
	size_t used = strlen(l->tokens);
	if (used + strlen(text) + 2 < sizeof l->tokens)
		snprintf(l->tokens + used, sizeof l->tokens - used, "%s%s", used ? " " : "", text);
}

static void problem(struct life *l, const struct event *e, const char *what)
{
	if (!l->broken++)
		snprintf(l->why, sizeof l->why, "line %d: %s", e->line, what);
}

static void follow(struct lives *ls, const struct stream *s)
{
	for (size_t i = 0; i < s->count; i++) {
		const struct event *e = &s->events[i];
		struct life *l = life_of(ls, e->transition);
		struct interaction *in = l->count ? &l->interactions[l->count - 1] : NULL;
		char text[96];
		switch (e->kind) {
		case K_BEGAN:
			if (l->state == INTERACTING)
				problem(l, e, "began while interacting");
			if (l->count == l->cap) {
				l->cap = l->cap ? l->cap * 2 : 4;
				l->interactions = realloc(l->interactions, l->cap * sizeof *l->interactions);
			}
			in = &l->interactions[l->count++];
			memset(in, 0, sizeof *in);
			l->state = INTERACTING;
			token(l, "began");
			/* began carries a progress like changed */
			__attribute__((fallthrough));
		case K_CHANGED:
			if (l->state != INTERACTING || !in) {
				problem(l, e, "changed outside an interaction");
				break;
			}
			if (in->count && fabs(in->progress[in->count - 1] - e->progress) < 5e-7)
				break;
			if (in->count == in->cap) {
				in->cap = in->cap ? in->cap * 2 : 64;
				in->progress = realloc(in->progress, in->cap * sizeof *in->progress);
			}
			in->progress[in->count++] = e->progress;
			break;
		case K_ENDED:
			if (l->state != INTERACTING || !in) {
				problem(l, e, "ended without began");
				break;
			}
			in->ended = 1;
			in->end_progress = e->progress;
			in->end_velocity = e->velocity;
			snprintf(in->decision, sizeof in->decision, "%s", e->decision);
			snprintf(in->reason, sizeof in->reason, "%s", e->reason);
			snprintf(text, sizeof text, "ended(%s,%s)", e->decision, e->reason);
			token(l, text);
			l->state = ANIMATING;
			break;
		case K_ANIMATING:
			if (l->state != ANIMATING)
				problem(l, e, "animating outside an animation");
			break;
		case K_FINISHED:
		case K_CANCELLED:
			if (l->state != ANIMATING)
				problem(l, e, e->kind == K_FINISHED ? "finished without ended" : "cancelled without ended");
			token(l, e->kind == K_FINISHED ? "finished" : "cancelled");
			l->state = IDLE;
			break;
		default:
			break;
		}
	}
}

/* ------------------------------------------------------------ commands */

static int cmd_lifecycle(const char *path)
{
	struct stream s;
	struct lives ls = {0};
	if (!load_stream(path, &s))
		return 2;
	follow(&ls, &s);
	int bad = 0;
	for (size_t i = 0; i < ls.count; i++) {
		struct life *l = &ls.items[i];
		const char *state = l->broken ? "out of order" : l->state != IDLE ? "left half-way" : NULL;
		printf("%s: %s%s%s%s%s\n", l->name, l->tokens, state ? "  <-- " : "", state ? state : "",
		       l->broken ? ": " : "", l->broken ? l->why : "");
		if (state)
			bad = 1;
	}
	if (s.errors) {
		printf("error line(s): %d, the first at line %d\n", s.errors, s.first_error_line);
		bad = 1;
	}
	if (!ls.count)
		printf("(no transitions)\n");
	return bad;
}

static int cmd_compare(const char *refpath, const char *livepath)
{
	struct stream ref, live;
	struct lives lr = {0}, ll = {0};
	if (!load_stream(refpath, &ref) || !load_stream(livepath, &live))
		return 2;
	follow(&lr, &ref);
	follow(&ll, &live);
	if (live.errors) {
		printf("the live stream has %d error line(s), the first at line %d\n", live.errors, live.first_error_line);
		return 1;
	}
	if (lr.count != ll.count) {
		printf("%zu transition(s) in the reference, %zu live\n", lr.count, ll.count);
		for (size_t i = 0; i < ll.count; i++)
			printf("  live %s: %s\n", ll.items[i].name, ll.items[i].tokens);
		return 1;
	}
	size_t values = 0, interactions = 0;
	char velocities[512] = "";
	for (size_t i = 0; i < lr.count; i++) {
		struct life *r = &lr.items[i];
		struct life *l = life_of(&ll, r->name);
		if (l->broken) {
			printf("%s: live stream out of order: %s\n", r->name, l->why);
			return 1;
		}
		if (strcmp(r->tokens, l->tokens) != 0) {
			printf("%s: lifecycle differs\n  reference: %s\n  live:      %s\n", r->name, r->tokens, l->tokens);
			return 1;
		}
		for (size_t k = 0; k < r->count; k++) {
			struct interaction *a = &r->interactions[k], *b = &l->interactions[k];
			interactions++;
			size_t n = a->count < b->count ? a->count : b->count;
			for (size_t j = 0; j < n; j++) {
				if (fabs(a->progress[j] - b->progress[j]) > 1e-6) {
					printf("%s interaction %zu: progress value %zu differs: %.6f reference, %.6f live\n",
					       r->name, k + 1, j + 1, a->progress[j], b->progress[j]);
					return 1;
				}
			}
			if (a->count != b->count) {
				printf("%s interaction %zu: %zu distinct progress values in the reference, %zu live "
				       "(equal for the first %zu)\n", r->name, k + 1, a->count, b->count, n);
				return 1;
			}
			values += a->count;
			if (!a->ended)
				continue;
			if (fabs(a->end_progress - b->end_progress) > 1e-6) {
				printf("%s interaction %zu: ended at progress %.6f in the reference, %.6f live\n",
				       r->name, k + 1, a->end_progress, b->end_progress);
				return 1;
			}
			double tolerance = 0.10 * fabs(a->end_velocity) + 1e-3;
			if (fabs(a->end_velocity - b->end_velocity) > tolerance) {
				printf("%s interaction %zu: release velocity %.6f live, reference %.6f (allowed +-%.6f)\n",
				       r->name, k + 1, b->end_velocity, a->end_velocity, tolerance);
				return 1;
			}
			size_t used = strlen(velocities);
			if (used < sizeof velocities - 64)
				snprintf(velocities + used, sizeof velocities - used, "%s%s v %.4g/%.4g", used ? "," : "",
				         r->name, a->end_velocity, b->end_velocity);
		}
	}
	printf("%zu transition(s), %zu interaction(s), %zu progress values equal; release v ref/live:%s\n",
	       lr.count, interactions, values, velocities[0] ? velocities : " none");
	return 0;
}

/* -------------------------------------------------------------- latency */

static volatile sig_atomic_t stop_requested;
static int latency_socket = -1;

static void on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
	if (latency_socket >= 0)
		shutdown(latency_socket, SHUT_RDWR);
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double percentile(const double *sorted, size_t n, double q)
{
	size_t i = (size_t)ceil(q * (double)n);
	if (i < 1)
		i = 1;
	if (i > n)
		i = n;
	return sorted[i - 1];
}

static int cmd_latency(const char *path, double seconds)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof addr.sun_path) {
		fprintf(stderr, "kt: socket path too long\n");
		return 2;
	}
	strcpy(addr.sun_path, path);
	latency_socket = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (latency_socket < 0 || connect(latency_socket, (struct sockaddr *)&addr, sizeof addr) < 0) {
		fprintf(stderr, "kt: cannot connect to %s: %s\n", path, strerror(errno));
		return 2;
	}
	struct sigaction sa = {.sa_handler = on_stop};
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	alarm((unsigned)ceil(seconds));

	size_t cap = 4096, n = 0;
	double *samples = malloc(cap * sizeof *samples);
	static char buf[1 << 16];
	size_t have = 0;
	while (!stop_requested) {
		ssize_t got = read(latency_socket, buf + have, sizeof buf - have);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		double now = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
		have += (size_t)got;
		char *p = buf, *end = buf + have, *nl;
		while ((nl = memchr(p, '\n', (size_t)(end - p)))) {
			struct event e;
			if (parse_event(p, nl, 0, &e) &&
			    (e.kind == K_BEGAN || e.kind == K_CHANGED || e.kind == K_ENDED)) {
				if (n == cap) {
					cap *= 2;
					samples = realloc(samples, cap * sizeof *samples);
				}
				samples[n++] = (now - e.time) * 1e6;
			}
			p = nl + 1;
		}
		have = (size_t)(end - p);
		memmove(buf, p, have);
		if (have == sizeof buf)
			have = 0; /* a line longer than the buffer: not an event line */
	}
	if (!n) {
		printf("events=0\n");
		return 1;
	}
	qsort(samples, n, sizeof *samples, by_value);
	printf("events=%zu p50=%.0fus p99=%.0fus max=%.0fus min=%.0fus\n", n, percentile(samples, n, 0.50),
	       percentile(samples, n, 0.99), samples[n - 1], samples[0]);
	return 0;
}

/* ------------------------------------------------------------ wait, count */

/* How many lines of TEXT contain NEEDLE (TEXT is modified). */
static long count_lines(char *text, const char *needle)
{
	long count = 0;
	for (char *p = text; p && *p;) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = 0;
		if (strstr(p, needle))
			count++;
		p = nl ? nl + 1 : p + strlen(p);
	}
	return count;
}

static int cmd_wait(const char *path, const char *needle, double seconds, long want)
{
	struct timespec start, now, nap = {0, 10 * 1000 * 1000};
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		char *text = slurp(path);
		long found = count_lines(text, needle);
		free(text);
		if (found >= want)
			return 0;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((double)(now.tv_sec - start.tv_sec) + (double)(now.tv_nsec - start.tv_nsec) * 1e-9 > seconds)
			return 1;
		nanosleep(&nap, NULL);
	}
}

static int cmd_count(const char *path, const char *needle)
{
	char *text = slurp(path);
	printf("%ld\n", count_lines(text, needle));
	free(text);
	return 0;
}

/* Reads exactly n bytes; 0, or -1 at EOF, an error or the time-out. */
static int read_full(int fd, void *buf, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, (char *)buf + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

/* Reads one unfragmented text frame from a server (unmasked), into buf. */
static int ws_read_text(int fd, char *buf, size_t cap)
{
	unsigned char h[10];
	for (;;) {
		if (read_full(fd, h, 2) != 0)
			return -1;
		size_t len = h[1] & 0x7f;
		if (len == 126) {
			if (read_full(fd, h + 2, 2) != 0)
				return -1;
			len = ((size_t)h[2] << 8) | h[3];
		} else if (len == 127) {
			return -1;
		}
		if (len >= cap)
			return -1;
		if (read_full(fd, buf, len) != 0)
			return -1;
		buf[len] = 0;
		if ((h[0] & 0x0f) == 0x1)
			return 0;
		if ((h[0] & 0x0f) == 0x8)
			return -1;
	}
}

static int cmd_ws(int port, const char *command)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	struct timeval tv = { .tv_sec = 10 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
		printf("connect 127.0.0.1:%d: %s\n", port, strerror(errno));
		return 1;
	}
	char req[256];
	int n = snprintf(req, sizeof req, "GET /stream HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\n"
			 "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
			 "Sec-WebSocket-Version: 13\r\n\r\n", port);
	if (write(fd, req, n) != n)
		return 1;
	char head[1024];
	size_t got = 0;
	const char *why = "";
	while (got < sizeof head - 1 && (got < 4 || memcmp(head + got - 4, "\r\n\r\n", 4) != 0)) {
		ssize_t r = read(fd, head + got, 1);
		if (r != 1) {
			why = r == 0 ? "end of stream" : strerror(errno);
			break;
		}
		got++;
	}
	head[got] = 0;
	if (strncmp(head, "HTTP/1.1 101", 12) != 0) {
		printf("no upgrade after %zu bytes (%s): %.60s\n", got, *why ? why : "not 101", head);
		return 1;
	}
	static char msg[1 << 16];
	if (ws_read_text(fd, msg, sizeof msg) != 0) {
		printf("no first message\n");
		return 1;
	}
	printf("%s\n", msg);
	if (command) {
		size_t len = strlen(command);
		if (len > 125)
			return 1;
		unsigned char frame[2 + 4 + 125];
		unsigned char mask[4] = { 0x12, 0x34, 0x56, 0x78 };
		frame[0] = 0x81;
		frame[1] = 0x80 | (unsigned char)len;
		memcpy(frame + 2, mask, 4);
		for (size_t i = 0; i < len; i++)
			frame[6 + i] = (unsigned char)command[i] ^ mask[i % 4];
		if (write(fd, frame, 6 + len) != (ssize_t)(6 + len))
			return 1;
		if (ws_read_text(fd, msg, sizeof msg) != 0) {
			printf("no reply\n");
			return 1;
		}
		printf("%s\n", msg);
	}
	close(fd);
	return 0;
}

static void usage(void)
{
	fputs("usage: kt compare REFERENCE LIVE\n"
	      "       kt ws PORT [COMMAND]\n"
	      "       kt lifecycle FILE\n"
	      "       kt latency SOCKET [SECONDS]\n"
	      "       kt wait FILE STRING SECONDS [COUNT]\n"
	      "       kt count FILE STRING\n"
	      "       kt send SOCKET COMMAND\n"
	      "       kt session SOCKET\n"
	      "       kt mtcheck FILE\n"
	      "       kt mtwatch NODE\n"
	      "       kt litouch FILE\n"
	      "       kt fwd-latency FRAMES [--major]\n", stderr);
	exit(64);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		usage();
	const char *cmd = argv[1];
	if (strcmp(cmd, "compare") == 0 && argc == 4)
		return cmd_compare(argv[2], argv[3]);
	if (strcmp(cmd, "ws") == 0 && (argc == 3 || argc == 4))
		return cmd_ws(atoi(argv[2]), argc == 4 ? argv[3] : NULL);
	if (strcmp(cmd, "lifecycle") == 0 && argc == 3)
		return cmd_lifecycle(argv[2]);
	if (strcmp(cmd, "latency") == 0 && (argc == 3 || argc == 4))
		return cmd_latency(argv[2], argc == 4 ? atof(argv[3]) : 120);
	if (strcmp(cmd, "wait") == 0 && (argc == 5 || argc == 6))
		return cmd_wait(argv[2], argv[3], atof(argv[4]), argc == 6 ? atol(argv[5]) : 1);
	if (strcmp(cmd, "count") == 0 && argc == 4)
		return cmd_count(argv[2], argv[3]);
	if (strcmp(cmd, "send") == 0 && argc == 4)
		return cmd_send(argv[2], argv[3]);
	if (strcmp(cmd, "session") == 0 && argc == 3)
		return cmd_session(argv[2]);
	if (strcmp(cmd, "mtcheck") == 0 && argc == 3)
		return cmd_mtcheck(argv[2]);
	if (strcmp(cmd, "mtwatch") == 0 && argc == 3)
		return cmd_mtwatch(argv[2]);
	if (strcmp(cmd, "litouch") == 0 && argc == 3)
		return cmd_litouch(argv[2]);
	if (strcmp(cmd, "fwd-latency") == 0 && (argc == 3 || (argc == 4 && strcmp(argv[3], "--major") == 0)))
		return cmd_fwd_latency(atol(argv[2]), argc == 4);
	usage();
	return 64;
}
