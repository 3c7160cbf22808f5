/* SPDX-License-Identifier: BSD-2-Clause */
/* The block layer against a flat memory image: every byte range must come back exactly as the
 * image holds it, whatever the sector size and max_io, and failures must name their LBA. */
#include "tests/unit/helpers.h"

#include <stdlib.h>
#include <string.h>

#include "common/errors.h"

static const uint32_t sizes[] = { 512, 1024, 2048, 4096 };

static void fill_pattern(uint8_t *p, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (uint8_t)(seed >> 16);
	}
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void test_random_reads_all_sizes(void **state)
{
	(void)state;
	uint64_t seed = 0x9E3779B97F4A7C15ULL;
	for (unsigned si = 0; si < 4; si++) {
		uint32_t ss = sizes[si];
		uint64_t size = 64 * (uint64_t)ss;
		/* max_io 3 forces many splits; 0 means no limit */
		uint32_t max_ios[] = { 1, 3, 0 };
		for (unsigned mi = 0; mi < 3; mi++) {
			struct test_disk *d = test_disk_new(size, ss, 4096 > ss ? 4096 : ss, 0, max_ios[mi]);
			fill_pattern(d->md.data, size, ss + mi);
			uint8_t *buf = malloc(size);
			for (int i = 0; i < 400; i++) {
				uint64_t off = rnd(&seed) % size;
				size_t len = (size_t)(rnd(&seed) % (size - off + 1));
				memset(buf, 0xA5, size);
				d->md.max_count_seen = 0;
				assert_int_equal(bdev_read_bytes(&d->dev, off, buf, len), 0);
				assert_memory_equal(buf, d->md.data + off, len);
				/* nothing written past the requested length */
				if (len < size)
					assert_int_equal(buf[len], 0xA5);
				if (max_ios[mi])
					assert_true(d->md.max_count_seen <= max_ios[mi]);
			}
			free(buf);
			test_disk_free(d);
		}
	}
}

static void test_partial_head_and_tail(void **state)
{
	(void)state;
	for (unsigned si = 0; si < 4; si++) {
		uint32_t ss = sizes[si];
		struct test_disk *d = test_disk_new(8 * (uint64_t)ss, ss, ss, 0, 2);
		fill_pattern(d->md.data, 8 * (size_t)ss, 7);
		uint8_t buf[5 * 4096];
		/* starts mid-sector, spans 3 whole sectors (two max_io chunks), ends mid-sector */
		uint64_t off = ss - 3;
		size_t len = 3 + 3 * (size_t)ss + 5;
		assert_int_equal(bdev_read_bytes(&d->dev, off, buf, len), 0);
		assert_memory_equal(buf, d->md.data + off, len);
		/* inside one sector */
		assert_int_equal(bdev_read_bytes(&d->dev, 2 * (uint64_t)ss + 10, buf, 20), 0);
		assert_memory_equal(buf, d->md.data + 2 * ss + 10, 20);
		/* the last byte of the device */
		assert_int_equal(bdev_read_bytes(&d->dev, 8 * (uint64_t)ss - 1, buf, 1), 0);
		assert_int_equal(buf[0], d->md.data[8 * ss - 1]);
		test_disk_free(d);
	}
}

static void test_device_end_refused(void **state)
{
	(void)state;
	for (unsigned si = 0; si < 4; si++) {
		uint32_t ss = sizes[si];
		uint64_t size = 4 * (uint64_t)ss;
		struct test_disk *d = test_disk_new(size, ss, ss, 0, 0);
		uint8_t buf[4096 * 2];
		memset(buf, 0x5A, sizeof buf);
		d->md.calls = 0;
		assert_int_equal(bdev_read_bytes(&d->dev, size - 10, buf, 11), AS_ERANGE);
		assert_int_equal(bdev_read_bytes(&d->dev, size, buf, 1), AS_ERANGE);
		assert_int_equal(bdev_read_bytes(&d->dev, UINT64_MAX - 2, buf, 8), AS_ERANGE);
		assert_int_equal(bdev_read(&d->dev, 3, 2, buf), AS_ERANGE);
		assert_int_equal(bdev_read(&d->dev, UINT64_MAX, 2, buf), AS_ERANGE);
		/* refused before any driver call, buffer untouched (not silently truncated) */
		assert_int_equal(d->md.calls, 0);
		assert_int_equal(buf[0], 0x5A);
		/* empty read at the very end is fine */
		assert_int_equal(bdev_read_bytes(&d->dev, size, buf, 0), 0);
		test_disk_free(d);
	}
}

static void test_driver_error_names_lba(void **state)
{
	(void)state;
	for (unsigned si = 0; si < 4; si++) {
		uint32_t ss = sizes[si];
		struct test_disk *d = test_disk_new(32 * (uint64_t)ss, ss, ss, 0, 4);
		uint8_t *buf = malloc(32 * (size_t)ss);
		d->md.fail_reads = true;
		d->md.fail_lba = 13;
		/* a read across LBA 13, starting mid-sector at 10 */
		int rc = bdev_read_bytes(&d->dev, 10 * (uint64_t)ss + 7, buf, 8 * (size_t)ss);
		assert_int_equal(rc, AS_EIO);
		assert_int_equal(d->dev.err_lba, 13);
		/* a read not touching LBA 13 works */
		assert_int_equal(bdev_read_bytes(&d->dev, 0, buf, 13 * (size_t)ss), 0);
		/* the error reaches through a slice, in both numberings */
		struct blockdev part;
		assert_int_equal(bdev_slice(&d->dev, 8, 16, &part), 0);
		rc = bdev_read_bytes(&part, 0, buf, 16 * (size_t)ss);
		assert_int_equal(rc, AS_EIO);
		assert_int_equal(part.err_lba, 5);
		assert_int_equal(bdev_disk_err_lba(&part), 13);
		free(buf);
		test_disk_free(d);
	}
}

static void test_slice_window(void **state)
{
	(void)state;
	struct test_disk *d = test_disk_new(64 * 512, 512, 4096, 3584, 0);
	fill_pattern(d->md.data, 64 * 512, 3);
	struct blockdev part;
	uint8_t buf[1024];
	assert_int_equal(bdev_slice(&d->dev, 7, 16, &part), 0);
	assert_int_equal(part.sectors, 16);
	/* LBA 7 of an offset-by-one drive is physically aligned: the window starts aligned */
	assert_int_equal(part.align_offset, 0);
	assert_int_equal(bdev_read_bytes(&part, 100, buf, 1000), 0);
	assert_memory_equal(buf, d->md.data + 7 * 512 + 100, 1000);
	assert_int_equal(bdev_read_bytes(&part, 16 * 512 - 1, buf, 2), AS_ERANGE);
	assert_int_equal(bdev_slice(&d->dev, 60, 5, &part), AS_ERANGE);
	assert_int_equal(bdev_slice(&d->dev, 8, 4, &part), 0);
	assert_int_equal(part.align_offset, 3584); /* next aligned disk byte 7680, window at 4096 */
	test_disk_free(d);
}

static void test_write_bytes_read_modify_write(void **state)
{
	(void)state;
	uint64_t seed = 42;
	for (unsigned si = 0; si < 4; si++) {
		uint32_t ss = sizes[si];
		uint64_t size = 16 * (uint64_t)ss;
		struct test_disk *d = test_disk_new(size, ss, ss, 0, 3);
		uint8_t *shadow = malloc(size), *src = malloc(size);
		fill_pattern(d->md.data, size, 99);
		memcpy(shadow, d->md.data, size);
		for (int i = 0; i < 200; i++) {
			uint64_t off = rnd(&seed) % size;
			size_t len = (size_t)(rnd(&seed) % (size - off + 1));
			fill_pattern(src, len, (uint32_t)i);
			assert_int_equal(bdev_write_bytes(&d->dev, off, src, len), 0);
			memcpy(shadow + off, src, len);
			assert_memory_equal(d->md.data, shadow, size);
		}
		assert_int_equal(bdev_write_bytes(&d->dev, size - 1, src, 2), AS_ERANGE);
		assert_memory_equal(d->md.data, shadow, size);
		free(shadow);
		free(src);
		test_disk_free(d);
	}
}

static void test_geometry_validation(void **state)
{
	(void)state;
	struct memdisk md = { .data = (uint8_t[4096]){ 0 }, .size = 4096 };
	struct blockdev dev;
	uint8_t scratch[4096];
	assert_int_equal(memdisk_init(&dev, &md, 256, 256, 0, 0, scratch), AS_EINVAL);
	assert_int_equal(memdisk_init(&dev, &md, 768, 768, 0, 0, scratch), AS_EINVAL);
	assert_int_equal(memdisk_init(&dev, &md, 1024, 512, 0, 0, scratch), AS_EINVAL);
	assert_int_equal(memdisk_init(&dev, &md, 4096, 4096, 0, 0, scratch), 0);
	md.size = 4000;
	assert_int_equal(memdisk_init(&dev, &md, 512, 512, 0, 0, scratch), AS_EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_reads_all_sizes),
		cmocka_unit_test(test_partial_head_and_tail),
		cmocka_unit_test(test_device_end_refused),
		cmocka_unit_test(test_driver_error_names_lba),
		cmocka_unit_test(test_slice_window),
		cmocka_unit_test(test_write_bytes_read_modify_write),
		cmocka_unit_test(test_geometry_validation),
	};
	return cmocka_run_group_tests_name("blockdev", tests, NULL, NULL);
}
