/*
 * socket-floor: the floor of bench/socket-latency.sh, the least a server can
 * do to fan one NDJSON stream out to N subscribers over a Unix socket.
 *
 *   socket-floor SOCKET [--rate HZ] [--bytes N] [--seconds S] [--max-clients N]
 *                       [--wait-clients N]
 *
 * One process, one thread. It listens on SOCKET (a Unix domain stream
 * socket; a stale file is removed first), and at each tick of an absolute
 * CLOCK_MONOTONIC schedule (clock_nanosleep TIMER_ABSTIME, --rate ticks per
 * second, default 240):
 *
 *   1. accepts every pending connection (the listening socket is
 *      non-blocking, the accepted ones blocking) and writes each new client a
 *      `hello` line, as transitiond does;
 *   2. builds one line shaped like a transitiond `changed` event,
 *        {"type":"changed","transition":"back","seq":N,"time":T,"progress":P,
 *         "velocity":V,"values":{"dim":D},"sent":NANOS}
 *      padded with JSON whitespace before `"sent"` to --bytes bytes including
 *      the newline (default 150; never shorter than the natural line), with
 *      `sent` = clock_gettime(CLOCK_MONOTONIC) in nanoseconds, taken once per
 *      line right before the loop below;
 *   3. writes it to every client with one plain blocking write(2) each, in
 *      the order they connected. A client whose write fails (it went away) is
 *      closed and dropped.
 *
 * With --wait-clients N it first only accepts (and says hello), and starts
 * the schedule once N clients are connected, like `transitiond replay
 * --wait-clients N`; without it, it streams from the start while subscribers
 * connect. After --seconds (default 60, counted from the start of the
 * process) or on SIGTERM /
 * SIGINT it closes every connection, removes SOCKET and exits 0. The
 * schedule is never shifted and no line is skipped: when a tick's writes take
 * longer than a period, the next line goes out at once (counted as a "late
 * tick" in the summary on stderr), as a paced replay catches up with the
 * recording's clock.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>

static volatile sig_atomic_t stopping;

static void on_signal(int sig)
{
	(void)sig;
	stopping = 1;
}

static void usage(void)
{
	fprintf(stderr, "usage: socket-floor SOCKET [--rate HZ] [--bytes N] [--seconds S] [--max-clients N]"
		" [--wait-clients N]\n");
	exit(64);
}

static int64_t ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts_ns(&ts);
}

static struct timespec ns_ts(int64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000), (long)(ns % 1000000000) };
	return ts;
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static const char hello[] =
	"{\"type\":\"hello\",\"protocol\":1,\"version\":\"0.1.0\",\"transitions\":"
	"[{\"name\":\"back\",\"gesture\":\"edge-pan\",\"fingers\":1}],\"active\":[]}\n";

static int *clients;
static long nclients, peak, dropped, max_clients = 100000;

/* Accepts every pending connection and says hello to each. */
static void accept_pending(int lfd)
{
	for (;;) {
		int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0)
			return; /* EAGAIN: none pending (or a transient error) */
		if (nclients == max_clients || write_all(c, hello, sizeof hello - 1) < 0) {
			close(c);
			continue;
		}
		clients[nclients++] = c;
		if (nclients > peak)
			peak = nclients;
	}
}

int main(int argc, char **argv)
{
	if (argc < 2)
		usage();
	const char *path = argv[1];
	double rate = 240, seconds = 60;
	long bytes = 150, wait_clients = 0;
	for (int i = 2; i < argc; i++) {
		if (i + 1 >= argc)
			usage();
		char *end;
		double v = strtod(argv[i + 1], &end);
		if (*argv[i + 1] == '\0' || *end != '\0' || !(v >= 0))
			usage();
		if (strcmp(argv[i], "--rate") == 0 && v > 0 && v <= 100000)
			rate = v;
		else if (strcmp(argv[i], "--bytes") == 0 && v <= 4000)
			bytes = (long)v;
		else if (strcmp(argv[i], "--seconds") == 0)
			seconds = v;
		else if (strcmp(argv[i], "--max-clients") == 0 && v >= 1)
			max_clients = (long)v;
		else if (strcmp(argv[i], "--wait-clients") == 0)
			wait_clients = (long)v;
		else
			usage();
		i++;
	}

	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL); /* no SA_RESTART: the sleep wakes up */
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	prctl(PR_SET_PDEATHSIG, SIGTERM);

	struct sockaddr_un addr;
	memset(&addr, 0, sizeof addr);
	addr.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof addr.sun_path) {
		fprintf(stderr, "socket-floor: socket path too long: %s\n", path);
		return 64;
	}
	strcpy(addr.sun_path, path);
	int lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (lfd < 0) {
		perror("socket");
		return 71;
	}
	unlink(path);
	if (bind(lfd, (struct sockaddr *)&addr, sizeof addr) < 0 || listen(lfd, 4096) < 0) {
		fprintf(stderr, "socket-floor: %s: %s\n", path, strerror(errno));
		return 71;
	}

	clients = calloc((size_t)max_clients, sizeof *clients);
	if (!clients) {
		perror("calloc");
		return 71;
	}
	nclients = 0;
	if (wait_clients > max_clients)
		wait_clients = max_clients;

	const int64_t period = (int64_t)llround(1e9 / rate);
	const int64_t stop = now_ns() + (int64_t)llround(seconds * 1e9);
	while (nclients < wait_clients && !stopping && now_ns() < stop) {
		struct pollfd pfd = { lfd, POLLIN, 0 };
		poll(&pfd, 1, 100);
		accept_pending(lfd);
	}
	const int64_t start = now_ns();
	int64_t next = start;
	uint64_t seq = 0, late = 0;
	char line[4096];

	while (!stopping) {
		next += period;
		if (next >= stop)
			break;
		struct timespec ts = ns_ts(next);
		int rc;
		while ((rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL)) == EINTR && !stopping)
			;
		if (stopping)
			break;

		accept_pending(lfd); /* 1. new clients */

		/* 2. the line: a `back` drag creeping along, shaped like transitiond's */
		seq++;
		double t = (double)(next - start) / 1e9;
		double progress = fmod(t * 0.2, 1.0);
		double dim = progress < 0.5 ? 1.0 - progress / 0.5 : 0.0;
		int head = snprintf(line, sizeof line,
			"{\"type\":\"changed\",\"transition\":\"back\",\"seq\":%llu,\"time\":%.6g,"
			"\"progress\":%.6g,\"velocity\":%.6g,\"values\":{\"dim\":%.6g},",
			(unsigned long long)seq, t, progress, 0.2 + 0.01 * sin(t), dim);
		int64_t sent = now_ns();
		char tail[40];
		int tlen = snprintf(tail, sizeof tail, "\"sent\":%lld}\n", (long long)sent);
		int pad = (int)bytes - head - tlen;
		if (pad < 0)
			pad = 0;
		memset(line + head, ' ', (size_t)pad);
		memcpy(line + head + pad, tail, (size_t)tlen);
		size_t len = (size_t)(head + pad + tlen);

		/* 3. one blocking write per client */
		for (long i = 0; i < nclients; i++) {
			if (write_all(clients[i], line, len) < 0) {
				close(clients[i]);
				clients[i--] = clients[--nclients];
				dropped++;
			}
		}

		if (now_ns() - next > period)
			late++; /* no line is skipped: the next tick is already due */
	}

	for (long i = 0; i < nclients; i++)
		close(clients[i]);
	close(lfd);
	unlink(path);
	fprintf(stderr, "socket-floor: %llu lines at %g/s, peak %ld clients, %ld dropped, %llu late ticks\n",
		(unsigned long long)seq, rate, peak, dropped, (unsigned long long)late);
	return 0;
}
