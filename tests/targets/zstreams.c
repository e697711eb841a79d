/* zlib streams for specs/lib/zlib.vigil. Clean by default: 10 rounds of
 * compressing a buffer (deflateInit, and deflateInit2 for gzip) and
 * decompressing it again (inflateInit, inflateInit2), each stream ended
 * once by the End of its kind; the two z_streams (main's locals) are set
 * up again each round. With a flag, one bug:
 *   --leak           the last deflate stream is never ended
 *   --reinit         round 5's deflate stream is set up again, not ended
 *   --double-end     inflateEnd twice (round 5)
 *   --use-after-end  deflate after deflateEnd (round 5)
 *   --wrong-end      inflateEnd on a deflate stream (round 5)
 *   --reinit-inflate round 4's inflate stream is set up again (inflateInit,
 *                    a tail call in zlib), not ended
 * zlib returns Z_STREAM_ERROR for the last three rather than crash, which
 * is why a program gets away with them. */
#include <stdio.h>
#include <string.h>
#include <zlib.h>

static unsigned char text[4096], packed[8192], unpacked[4096];

__attribute__((noinline)) static unsigned long pack(z_stream *z, int gzip, int round,
						   const char *bug)
{
	memset(z, 0, sizeof(*z));
	if ((gzip ? deflateInit2(z, 6, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY)
		  : deflateInit(z, 6)) != Z_OK)
		return 0;
	z->next_in = text;
	z->avail_in = sizeof(text);
	z->next_out = packed;
	z->avail_out = sizeof(packed);
	if (deflate(z, Z_FINISH) != Z_STREAM_END)
		return 0;
	unsigned long n = z->total_out;

	if (round == 9 && !strcmp(bug, "--leak"))
		return n;			/* the bug: never ended */
	if (round == 5 && !strcmp(bug, "--reinit"))
		deflateInit(z, 1);		/* the bug: z is set up */
	if (round == 5 && !strcmp(bug, "--wrong-end"))
		inflateEnd(z);			/* the bug */
	deflateEnd(z);
	if (round == 5 && !strcmp(bug, "--use-after-end"))
		deflate(z, Z_FINISH);		/* the bug */
	return n;
}

__attribute__((noinline)) static int unpack(z_stream *z, int gzip, unsigned long n,
					    int round, const char *bug)
{
	memset(z, 0, sizeof(*z));
	if ((gzip ? inflateInit2(z, 16 + 15) : inflateInit(z)) != Z_OK)
		return -1;
	z->next_in = packed;
	z->avail_in = n;
	z->next_out = unpacked;
	z->avail_out = sizeof(unpacked);
	int r = inflate(z, Z_FINISH);

	if (round == 4 && !strcmp(bug, "--reinit-inflate"))
		inflateInit(z);			/* the bug: z is set up */
	inflateEnd(z);
	if (round == 5 && !strcmp(bug, "--double-end"))
		inflateEnd(z);			/* the bug */
	return r == Z_STREAM_END && !memcmp(text, unpacked, sizeof(text)) ? 0 : -1;
}

int main(int argc, char **argv)
{
	const char *bug = argc > 1 ? argv[1] : "";
	z_stream dz, iz;

	for (size_t i = 0; i < sizeof(text); i++)
		text[i] = "a few words, repeated "[i % 22];
	printf("zstreams: deflate stream at %p, inflate stream at %p\n", (void *)&dz, (void *)&iz);
	fflush(stdout);
	for (int round = 0; round < 10; round++) {
		int gzip = round % 2;
		unsigned long n = pack(&dz, gzip, round, bug);

		if (!n || unpack(&iz, gzip, n, round, bug))
			return 1;
	}
	printf("zstreams: done, 10 rounds (5 deflateInit, 5 deflateInit2, 5 inflateInit, 5 inflateInit2)\n");
	return 0;
}
