/*
 * socket-subscriber: one subscriber process of bench/socket-latency.sh.
 *
 * Connects to a Unix domain stream socket, reads NDJSON lines with plain
 * read(2) into a 64 KiB buffer and, for every line that carries a
 * `"sent":NANOS` field (CLOCK_MONOTONIC nanoseconds stamped by the writer),
 * records the pair (sent, received). `received` is one clock_gettime
 * (CLOCK_MONOTONIC) taken right after each read(2) returns, shared by every
 * line that read delivered. Latency = received - sent.
 *
 *   socket-subscriber SOCKET OUTPUT [--count N] [--ready-fd FD] [--timeout S] [--frames 1]
 *   socket-subscriber ws://127.0.0.1:PORT OUTPUT [...]
 *
 * With a ws:// address it is a WebSocket client of transitiond's WebSocket
 * transport instead (TCP, the RFC 6455 opening handshake, then each text
 * message is one line), to compare the two transports with the same
 * reader: `received` is taken the same way, after each read(2).
 *
 * OUTPUT gets the samples when the subscriber stops: a 16-byte header
 * ("TDLAT1\0\0", then the sample count as a little-endian uint64) followed by
 * that many records of two little-endian int64: sent_ns, received_ns.
 * It stops, writes OUTPUT and exits on SIGTERM or SIGINT (exit 0), after
 * --count stamped lines (exit 0), when the server closes the connection
 * (exit 3), or after --timeout seconds (SIGALRM, exit 0; a safety bound).
 * --ready-fd FD: write one byte to FD once the first complete line (the
 * server's hello) has arrived, then close FD. A first line that is an
 * `{"type":"error"...` (e.g. too-many-clients) is printed to stderr and the
 * subscriber exits 4 without signalling ready. Connecting fails -> exit 2.
 *
 * The field is found from the end of the line: the line must end in
 * `"sent":DIGITS}` (the field is the last one of the object); a line that
 * does not is searched for `"sent":` anywhere, so a stamp in another place is
 * still read. Lines without it (hello, replies) are skipped.
 *
 * --frames 1 (Unix socket only): also report presented frames, as a UI
 * on a 60 Hz display does (touch to frame): at most every 1/60 s, the
 * newest seq read is reported as presented when it was read, in one
 * `{"cmd":"frames","frames":[[SEQ,SECONDS]]}` (CLOCK_MONOTONIC: the
 * daemon's clock on the same machine).
 *
 * Cheap on purpose (1,000 of these run at once): one read(2) and one
 * clock_gettime per wake-up, no poll, no allocation per line. A signal
 * handler shuts the socket down (shutdown(2) is async-signal-safe), so a
 * read(2) blocked or about to block returns 0 at once and the main loop
 * ends normally. The parent's death sends SIGTERM (PR_SET_PDEATHSIG).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>

struct sample {
	int64_t sent;
	int64_t received;
};

static volatile sig_atomic_t stopping;
static int sock = -1;

static void on_signal(int sig)
{
	(void)sig;
	stopping = 1;
	if (sock >= 0)
		shutdown(sock, SHUT_RDWR);
}

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void usage(void)
{
	fprintf(stderr, "usage: socket-subscriber SOCKET OUTPUT [--count N] [--ready-fd FD] [--timeout S] [--frames 1]\n");
	exit(64);
}

/* The `"sent":` value of the line [p, end) (no '\n'), or -1. */
static int64_t sent_of(const char *p, const char *end)
{
	static const char key[] = "\"sent\":";
	const size_t klen = sizeof key - 1;
	const char *q = end;
	while (q > p && (q[-1] == '\r' || q[-1] == ' '))
		q--;
	if (q > p && q[-1] == '}') {
		const char *d = --q;
		while (d > p && d[-1] >= '0' && d[-1] <= '9')
			d--;
		if (d < q && (size_t)(d - p) >= klen && memcmp(d - klen, key, klen) == 0) {
			int64_t v = 0;
			for (; d < q; d++)
				v = v * 10 + (*d - '0');
			return v;
		}
	}
	const char *k = memmem(p, (size_t)(end - p), key, klen);
	if (!k)
		return -1;
	k += klen;
	if (k >= end || *k < '0' || *k > '9')
		return -1;
	int64_t v = 0;
	for (; k < end && *k >= '0' && *k <= '9'; k++)
		v = v * 10 + (*k - '0');
	return v;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
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

static int save(const char *path, const struct sample *s, uint64_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		perror(path);
		return -1;
	}
	unsigned char header[16] = "TDLAT1";
	for (int i = 0; i < 8; i++)
		header[8 + i] = (unsigned char)(n >> (8 * i));
	/* x86-64 and aarch64 are little-endian: the records go out as they are. */
	if (write_all(fd, header, sizeof header) < 0 ||
	    write_all(fd, s, n * sizeof *s) < 0 || close(fd) < 0) {
		perror(path);
		return -1;
	}
	return 0;
}

/* What the reader keeps: the samples, and whether the first line came. */
static struct sample *samples;
static size_t cap = 1 << 12;
static uint64_t n;
static uint64_t count;
static int ready_fd = -1;
static int first_line = 1;
static int frames;               /* --frames 1 */
static uint64_t newest_seq;      /* the newest seq read, not yet reported */
static int64_t last_report = 0;  /* when the last frames command went */

/* The `"seq":N` of a line, or 0. */
static uint64_t seq_of(const char *p, const char *end)
{
	static const char key[] = "\"seq\":";
	for (const char *q = p; q + sizeof key - 1 < end; q++) {
		if (memcmp(q, key, sizeof key - 1) != 0)
			continue;
		uint64_t v = 0;
		for (q += sizeof key - 1; q < end && *q >= '0' && *q <= '9'; q++)
			v = v * 10 + (uint64_t)(*q - '0');
		return v;
	}
	return 0;
}

/* --frames 1: the newest seq, as presented at `now`, once a 60 Hz frame has passed. */
static void report_frame(int fd, int64_t now)
{
	if (!newest_seq || now - last_report < 16666667)
		return;
	char line[96];
	int len = snprintf(line, sizeof line, "{\"cmd\":\"frames\",\"frames\":[[%llu,%lld.%09lld]]}\n",
			   (unsigned long long)newest_seq, (long long)(now / 1000000000), (long long)(now % 1000000000));
	(void)!write(fd, line, (size_t)len);
	newest_seq = 0;
	last_report = now;
}

/* One line [p, end) read at `received`: 0 to go on, 1 when --count is
 * reached, -1 on an allocation failure, 4 when the server refused us. */
static int take_line(const char *p, const char *end, int64_t received)
{
	if (first_line) {
		first_line = 0;
		if (end - p >= 15 && memcmp(p, "{\"type\":\"error\"", 15) == 0) {
			fprintf(stderr, "socket-subscriber: the server says: %.*s\n", (int)(end - p), p);
			return 4;
		}
		if (ready_fd >= 0) {
			(void)!write(ready_fd, "r", 1);
			close(ready_fd);
			ready_fd = -1;
		}
	}
	if (frames) {
		uint64_t seq = seq_of(p, end);
		if (seq > newest_seq)
			newest_seq = seq;
	}
	int64_t sent = sent_of(p, end);
	if (sent < 0)
		return 0;
	if (n == cap) {
		cap *= 2;
		struct sample *bigger = realloc(samples, cap * sizeof *samples);
		if (!bigger) {
			perror("realloc");
			return -1;
		}
		samples = bigger;
	}
	samples[n].sent = sent;
	samples[n].received = received;
	n++;
	return count && n >= count ? 1 : 0;
}

/* Connects to 127.0.0.1:PORT of "ws://HOST:PORT[/...]" and makes the
 * WebSocket opening handshake; -1 on failure. Bytes read past the
 * response's head are left in buf (*have). */
static int connect_websocket(const char *url, char *buf, size_t size, size_t *have)
{
	char host[64];
	int port = 0;
	if (sscanf(url, "ws://%63[^:]:%d", host, &port) != 2 || port <= 0 || port > 65535) {
		fprintf(stderr, "socket-subscriber: not ws://IPV4:PORT: %s\n", url);
		return -1;
	}
	struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	if (inet_pton(AF_INET, host, &addr.sin_addr) != 1) {
		fprintf(stderr, "socket-subscriber: not an IPv4 address: %s\n", host);
		return -1;
	}
	int fd = -1;
	for (int attempt = 0;; attempt++) {
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd >= 0 && connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0)
			break;
		int e = errno;
		if (fd >= 0)
			close(fd);
		if (stopping || attempt >= 500 || (e != ECONNREFUSED && e != EINTR && e != EAGAIN)) {
			fprintf(stderr, "socket-subscriber: connect %s: %s\n", url, strerror(e));
			return -1;
		}
		usleep(10000);
	}
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	char request[256];
	int len = snprintf(request, sizeof request,
			   "GET /stream HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
			   "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", host, port);
	if (write_all(fd, request, (size_t)len) < 0) {
		perror("socket-subscriber: write");
		return -1;
	}
	*have = 0;
	for (;;) {
		ssize_t r = read(fd, buf + *have, size - *have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			fprintf(stderr, "socket-subscriber: no handshake response from %s\n", url);
			return -1;
		}
		*have += (size_t)r;
		char *head_end = memmem(buf, *have, "\r\n\r\n", 4);
		if (!head_end)
			continue;
		if (*have < 12 || memcmp(buf, "HTTP/1.1 101", 12) != 0) {
			fprintf(stderr, "socket-subscriber: the upgrade was refused: %.*s\n", (int)(head_end - buf), buf);
			return -1;
		}
		size_t rest = *have - (size_t)(head_end + 4 - buf);
		memmove(buf, head_end + 4, rest);
		*have = rest;
		return fd;
	}
}

/* Frames in buf[0, *have): each complete text message is a line. Returns
 * what take_line returned to stop (or 3 for a close frame), else 0; what
 * is left of an incomplete frame is moved to the start. */
static int take_frames(char *buf, size_t *have, int64_t received)
{
	size_t at = 0;
	int status = 0;
	while (*have - at >= 2) {
		unsigned char *h = (unsigned char *)buf + at;
		size_t head = 2, length = h[1] & 0x7f;
		if (length == 126) {
			if (*have - at < 4)
				break;
			length = ((size_t)h[2] << 8) | h[3];
			head = 4;
		} else if (length == 127) {
			if (*have - at < 10)
				break;
			length = 0;
			for (int i = 2; i < 10; i++)
				length = (length << 8) | h[i];
			head = 10;
		}
		if (*have - at < head + length)
			break;
		const char *payload = buf + at + head;
		at += head + length;
		int opcode = h[0] & 0x0f;
		if (opcode == 0x8)
			return 3;
		if (opcode == 0x1 && (status = take_line(payload, payload + length, received)) != 0)
			return status;
	}
	*have -= at;
	if (*have && at)
		memmove(buf, buf + at, *have);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		usage();
	const char *path = argv[1], *output = argv[2];
	unsigned timeout = 0;
	for (int i = 3; i < argc; i++) {
		if (i + 1 >= argc)
			usage();
		char *end;
		unsigned long long v = strtoull(argv[i + 1], &end, 10);
		if (*argv[i + 1] == '\0' || *end != '\0')
			usage();
		if (strcmp(argv[i], "--count") == 0)
			count = v;
		else if (strcmp(argv[i], "--ready-fd") == 0)
			ready_fd = (int)v;
		else if (strcmp(argv[i], "--timeout") == 0)
			timeout = (unsigned)v;
		else if (strcmp(argv[i], "--frames") == 0)
			frames = v != 0;
		else
			usage();
		i++;
	}

	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() == 1)
		return 1; /* the parent is already gone */
	if (timeout)
		alarm(timeout);

	samples = malloc(cap * sizeof *samples);
	if (!samples) {
		perror("malloc");
		return 1;
	}
	static char buf[1 << 16];
	size_t have = 0; /* bytes of an unfinished line (or frame) at the start of buf */
	int status = 0;
	int websocket = strncmp(path, "ws://", 5) == 0;
	int fd;
	if (websocket) {
		fd = connect_websocket(path, buf, sizeof buf, &have);
		if (fd < 0)
			return 2;
		sock = fd;
		if (stopping)
			shutdown(fd, SHUT_RDWR);
		if (have && (status = take_frames(buf, &have, now_ns())) != 0)
			goto done;
	} else {
		struct sockaddr_un addr;
		memset(&addr, 0, sizeof addr);
		addr.sun_family = AF_UNIX;
		if (strlen(path) >= sizeof addr.sun_path) {
			fprintf(stderr, "socket-subscriber: socket path too long: %s\n", path);
			return 64;
		}
		strcpy(addr.sun_path, path);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			perror("socket");
			return 2;
		}
		/* A full accept backlog makes a blocking connect wait; a missing or
		 * refusing socket is retried for up to 5 s. */
		for (int attempt = 0;; attempt++) {
			if (connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0)
				break;
			if (errno == EINTR && !stopping)
				continue;
			if (stopping || attempt >= 500 || (errno != ENOENT && errno != ECONNREFUSED && errno != EAGAIN)) {
				fprintf(stderr, "socket-subscriber: connect %s: %s\n", path, strerror(errno));
				return 2;
			}
			usleep(10000);
		}
		sock = fd;
		if (stopping)
			shutdown(fd, SHUT_RDWR);
	}

	for (;;) {
		if (have == sizeof buf) {
			fprintf(stderr, "socket-subscriber: a line over %zu bytes\n", sizeof buf);
			status = 1;
			break;
		}
		ssize_t r = read(fd, buf + have, sizeof buf - have);
		int64_t received = now_ns();
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (stopping)
				break;
			perror("socket-subscriber: read");
			status = 3;
			break;
		}
		if (r == 0) {
			if (!stopping)
				status = 3; /* the server closed the connection */
			break;
		}
		have += (size_t)r;
		int taken;
		if (websocket) {
			taken = take_frames(buf, &have, received);
		} else {
			char *p = buf, *end = buf + have, *nl;
			taken = 0;
			while (!taken && (nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
				taken = take_line(p, nl, received);
				p = nl + 1;
			}
			have = (size_t)(end - p);
			if (have && p != buf)
				memmove(buf, p, have);
			if (frames)
				report_frame(fd, received);
		}
		if (taken == 4)
			return 4;
		if (taken != 0) {
			status = taken == 1 ? 0 : taken == 3 ? (stopping ? 0 : 3) : 1;
			break;
		}
	}
done:
	if (status == 4)
		return 4;
	close(fd);
	if (save(output, samples, n) < 0)
		return 1;
	return status;
}
