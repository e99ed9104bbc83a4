/*
 * evemu-read: the libevemu side of bench/replay-throughput.sh.
 *
 * Reads an evemu recording the way evemu-play does, without a device:
 * evemu_read() for the description, then evemu_read_event() until it stops,
 * and prints how many events it read. The values are summed into a checksum
 * so the reading cannot be optimised away.
 *
 *   gcc -O2 -o evemu-read evemu-read.c $(pkg-config --cflags --libs evemu)
 *   ./evemu-read FILE.events
 *
 * libevemu 2.7 skips comment and blank lines inside the event section and
 * returns 1 per `E:` line, 0 at the end of the file and -1 on a malformed
 * `E:` line, so the count is the number of `E:` lines.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/input.h>
#include <evemu.h>

int main(int argc, char **argv)
{
	struct evemu_device *dev;
	struct input_event ev;
	unsigned long long count = 0;
	long long value_sum = 0;
	long last_sec = 0, last_usec = 0;
	FILE *fp;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: %s FILE.events\n", argv[0]);
		return 64; /* EX_USAGE */
	}
	fp = fopen(argv[1], "r");
	if (!fp) {
		fprintf(stderr, "evemu-read: %s: %s\n", argv[1], strerror(errno));
		return 66; /* EX_NOINPUT */
	}
	dev = evemu_new(NULL);
	if (!dev) {
		fprintf(stderr, "evemu-read: out of memory\n");
		return 71; /* EX_OSERR */
	}
	if (evemu_read(dev, fp) <= 0) {
		fprintf(stderr, "evemu-read: %s: not an evemu device description\n", argv[1]);
		return 65; /* EX_DATAERR */
	}

	while ((rc = evemu_read_event(fp, &ev)) > 0) {
		count++;
		value_sum += ev.value;
		last_sec = ev.input_event_sec;
		last_usec = ev.input_event_usec;
	}
	if (rc < 0) {
		fprintf(stderr, "evemu-read: %s: malformed event after %llu events\n", argv[1], count);
		return 65;
	}

	printf("%llu events, value sum %lld, last at %ld.%06ld, device \"%s\"\n",
	       count, value_sum, last_sec, last_usec, evemu_get_name(dev));
	evemu_delete(dev);
	fclose(fp);
	return 0;
}
