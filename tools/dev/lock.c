/* SPDX-License-Identifier: BSD-2-Clause */
#define _GNU_SOURCE /* F_OFD_GETLK */
#include "tools/dev/lock.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "common/bits.h"
#include "tools/base/exit_codes.h"
#include "tools/base/report.h"

static uint32_t g_wait = LOCK_WAIT_DEFAULT;
static bool g_disabled;

void lock_set_wait(uint32_t seconds)
{
	g_wait = seconds;
}

void lock_set_disabled(bool disabled)
{
	g_disabled = disabled;
}

bool lock_parse_wait(const char *s, uint32_t *out)
{
	uint32_t v = 0;

	if (!strcmp(s, "infinity")) {
		*out = LOCK_WAIT_FOREVER;
		return true;
	}
	if (!*s || strspn(s, "0123456789") != strlen(s))
		return false;
	for (; *s; s++) {
		v = v * 10 + (uint32_t)(*s - '0');
		if (v > LOCK_WAIT_MAX)
			return false;
	}
	*out = v;
	return true;
}

/* The locks this process holds, so that a second open of the same file (a dry run's view, the
 * ESP copy's checks, mkimage's look at the file it replaces) joins the lock instead of waiting
 * for itself: flock locks of two open files conflict even within one process. */
struct held {
	dev_t dev;
	ino_t ino;
	int fd;
	bool exclusive;
	unsigned refs;
};
static struct held g_held[16];

static int held_find(const struct stat *st)
{
	for (unsigned i = 0; i < ARRAY_SIZE(g_held); i++)
		if (g_held[i].refs && g_held[i].dev == st->st_dev && g_held[i].ino == st->st_ino)
			return (int)i;
	return -1;
}

/* "PID 1234 (anysector add)": the program's name, and for anysector its command. */
static void describe_pid(int pid, char *out, size_t cap)
{
	char path[64], buf[512] = { 0 };
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/cmdline", pid);
	if ((f = fopen(path, "r"))) {
		n = fread(buf, 1, sizeof buf - 1, f);
		fclose(f);
	}
	buf[n] = 0;
	const char *prog = strrchr(buf, '/') ? strrchr(buf, '/') + 1 : buf;
	const char *arg = strlen(buf) + 1 < n ? buf + strlen(buf) + 1 : "";
	char name[80];
	bool ours = !strcmp(prog, "anysector");
	snprintf(name, sizeof name, "%.40s%s%.30s", prog, ours && *arg ? " " : "", ours ? arg : "");
	for (char *p = name; *p; p++)
		if (*p < 0x20 || *p > 0x7e)
			*p = '?';
	if (name[0])
		snprintf(out, cap, "PID %d (%s)", pid, name);
	else
		snprintf(out, cap, "PID %d", pid);
}

/* The first holder of a lock of kind type ("FLOCK", "POSIX", "OFDLCK") on st's file in
 * /proc/locks that conflicts with the access wanted (any for exclusive, a WRITE for shared),
 * other than this process. Returns its PID (-1: an OFD lock, which names no process), or 0. */
static int proc_locks_holder(const struct stat *st, const char *type, bool exclusive)
{
	FILE *f = fopen("/proc/locks", "r");
	char line[256];
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof line, f)) {
		char *tok[10], *save = NULL;
		unsigned n = 0;
		for (char *t = strtok_r(line, " \t\n", &save); t && n < ARRAY_SIZE(tok);
		     t = strtok_r(NULL, " \t\n", &save))
			tok[n++] = t;
		/* "1: FLOCK ADVISORY WRITE 1234 fe:00:5678 0 EOF"; "1: -> ..." is a waiter */
		if (n < 6 || !strcmp(tok[1], "->") || strcmp(tok[1], type))
			continue;
		unsigned maj, min;
		unsigned long long ino;
		if (sscanf(tok[5], "%x:%x:%llu", &maj, &min, &ino) != 3 ||
		    maj != major(st->st_dev) || min != minor(st->st_dev) || ino != st->st_ino)
			continue;
		int pid = atoi(tok[4]);
		if (pid == getpid() || (!exclusive && strcmp(tok[3], "WRITE")))
			continue;
		found = pid ? pid : -1;
	}
	fclose(f);
	return found;
}

/* Whether fdinfo (of /proc/P/fdinfo/N) lists a lock of kind type ("FLOCK", "OFDLCK"). */
static bool fdinfo_has_lock(const char *fdinfo, const char *type)
{
	FILE *f = fopen(fdinfo, "r");
	char line[256];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof line, f))
		found = !strncmp(line, "lock:", 5) && strstr(line, type);
	fclose(f);
	return found;
}

/* A live process with a descriptor of st's file that holds a lock of kind type: for an OFD
 * lock, which /proc/locks names no process for, and for a flock whose taker has ended while a
 * child it passed the descriptor to holds it on (flock(1)'s command). Every process's open
 * files are looked at, so only when the answer is shown. Returns 0 when none is visible. */
static int fd_holder(const struct stat *st, const char *type)
{
	DIR *procs = opendir("/proc");
	struct dirent *p;
	int found = 0;

	if (!procs)
		return 0;
	while (!found && (p = readdir(procs))) {
		int pid = atoi(p->d_name);
		char dir[64];
		if (pid <= 0 || pid == getpid())
			continue;
		snprintf(dir, sizeof dir, "/proc/%d/fd", pid);
		DIR *fds = opendir(dir);
		struct dirent *d;
		while (fds && !found && (d = readdir(fds))) {
			char fd_path[sizeof dir + 256], info[sizeof dir + 256];
			struct stat fst;
			snprintf(fd_path, sizeof fd_path, "%s/%s", dir, d->d_name);
			if (d->d_name[0] == '.' || stat(fd_path, &fst) || fst.st_dev != st->st_dev ||
			    fst.st_ino != st->st_ino)
				continue;
			snprintf(info, sizeof info, "/proc/%d/fdinfo/%s", pid, d->d_name);
			if (fdinfo_has_lock(info, type))
				found = pid;
		}
		if (fds)
			closedir(fds);
	}
	closedir(procs);
	return found;
}

/* Who holds a flock on st's file that keeps us waiting: /proc/locks's taker while it lives,
 * else a process that holds the lock's descriptor. Returns the PID, or 0 when none is seen. */
static int flock_holder(const struct stat *st, bool exclusive)
{
	char proc[64];
	int pid = proc_locks_holder(st, "FLOCK", exclusive);
	snprintf(proc, sizeof proc, "/proc/%d", pid);
	if (pid > 0 && !access(proc, F_OK))
		return pid;
	return fd_holder(st, "FLOCK");
}

static void holder_text(int pid, char *out, size_t cap)
{
	if (pid > 0)
		describe_pid(pid, out, cap);
	else
		snprintf(out, cap, "another process");
}

static volatile sig_atomic_t g_ticks;

static void on_tick(int sig)
{
	(void)sig;
	g_ticks++;
}

static uint64_t now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

/* flock(fd, op), blocking for at most seconds (LOCK_WAIT_FOREVER: no bound). A repeating
 * interval timer interrupts the wait every tenth of a second to look at the clock, so a tick
 * that comes just before flock blocks cannot leave it blocked for good. Returns 0, ETIMEDOUT
 * or flock's errno. */
static int flock_wait(int fd, int op, uint32_t seconds)
{
	struct sigaction tick = { .sa_handler = on_tick }, old_action;
	struct itimerval every = { { 0, 100000 }, { 0, 100000 } }, off = { 0 }, old_timer;
	bool timed = seconds != LOCK_WAIT_FOREVER;
	uint64_t end = now_ms() + (uint64_t)seconds * 1000;
	int err = 0;

	if (timed) {
		sigemptyset(&tick.sa_mask); /* no SA_RESTART: the tick must interrupt flock */
		sigaction(SIGALRM, &tick, &old_action);
		setitimer(ITIMER_REAL, &every, &old_timer);
	}
	while (flock(fd, op)) {
		if (errno != EINTR) {
			err = errno;
			break;
		}
		if (timed && now_ms() >= end) {
			err = ETIMEDOUT;
			break;
		}
	}
	if (timed) {
		setitimer(ITIMER_REAL, &off, NULL);
		sigaction(SIGALRM, &old_action, NULL);
	}
	return err;
}

/* Takes the lock on fd (st its file), waiting as the policy says. Returns 0 or an exit code. */
static int wait_for(int fd, const struct stat *st, bool exclusive, const char *path)
{
	int op = exclusive ? LOCK_EX : LOCK_SH;
	char who[128];

	if (!flock(fd, op | LOCK_NB))
		return 0;
	if (errno != EWOULDBLOCK) {
		t_error("lock.failed", "%s: cannot be locked: %s", path, strerror(errno));
		return EXIT_ERRORS;
	}
	holder_text(flock_holder(st, exclusive), who, sizeof who);
	if (g_wait) {
		char limit[32] = "no time limit";
		if (g_wait != LOCK_WAIT_FOREVER)
			snprintf(limit, sizeof limit, "at most %u s", (unsigned)g_wait);
		if (strncmp(who, "PID", 3))
			fprintf(stderr, "anysector: waiting for the lock on %s, which %s holds (%s)\n",
				path, who, limit);
		else
			fprintf(stderr, "anysector: waiting for the lock held by %s on %s (%s)\n", who,
				path, limit);
	}
	int err = g_wait ? flock_wait(fd, op, g_wait) : ETIMEDOUT;
	if (!err)
		return 0;
	if (err != ETIMEDOUT) {
		t_error("lock.failed", "%s: cannot be locked: %s", path, strerror(err));
		return EXIT_ERRORS;
	}
	holder_text(flock_holder(st, exclusive), who, sizeof who);
	if (g_wait)
		t_error("refuse.locked", "%s is locked by %s and still was after %u s of waiting; "
			"nothing was %s (--wait SECONDS waits longer)", path, who, (unsigned)g_wait,
			exclusive ? "written" : "read");
	else
		t_error("refuse.locked", "%s is locked by %s; nothing was %s (--wait SECONDS waits "
			"for it)", path, who, exclusive ? "written" : "read");
	return EXIT_REFUSED;
}

/* Whether path still names st's file (it was not replaced or removed meanwhile). */
static bool still_there(const char *path, const struct stat *st)
{
	struct stat now;
	return !stat(path, &now) && now.st_dev == st->st_dev && now.st_ino == st->st_ino;
}

/* One more hold of a lock this process has; a shared one becomes exclusive when asked. */
static int held_join(int slot, bool exclusive, const char *path, int *id)
{
	struct held *h = &g_held[slot];
	struct stat st = { .st_dev = h->dev, .st_ino = h->ino };

	if (exclusive && !h->exclusive) {
		int rc = wait_for(h->fd, &st, true, path);
		if (rc)
			return rc;
		h->exclusive = true;
	}
	h->refs++;
	*id = slot + 1;
	return 0;
}

static int held_add(int fd, const struct stat *st, bool exclusive, const char *path, int *id)
{
	for (unsigned i = 0; i < ARRAY_SIZE(g_held); i++) {
		if (g_held[i].refs)
			continue;
		g_held[i] = (struct held){ st->st_dev, st->st_ino, fd, exclusive, 1 };
		*id = (int)i + 1;
		return 0;
	}
	close(fd);
	t_error("lock.failed", "%s: cannot be locked: this process holds too many locks", path);
	return EXIT_ERRORS;
}

int lock_take(const char *path, bool exclusive, bool create, int *id)
{
	*id = 0;
	if (g_disabled)
		return 0;
	for (unsigned tries = 0; tries < 8; tries++) {
		/* a lock file is made once: O_CREAT only when it is missing */
		int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
		if (fd < 0 && errno == ENOENT && create)
			fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOCTTY, 0644);
		struct stat st;
		if (fd < 0 || fstat(fd, &st)) {
			t_error("lock.open", "%s: cannot be opened to lock it: %s", path,
				strerror(errno));
			if (fd >= 0)
				close(fd);
			return EXIT_ERRORS;
		}
		int slot = held_find(&st);
		if (slot >= 0) {
			close(fd);
			return held_join(slot, exclusive, path, id);
		}
		int rc = wait_for(fd, &st, exclusive, path);
		if (rc) {
			close(fd);
			return rc;
		}
		if (!S_ISREG(st.st_mode) || still_there(path, &st))
			return held_add(fd, &st, exclusive, path, id);
		close(fd); /* replaced while we waited: lock what the name holds now */
	}
	t_error("lock.failed", "%s: was replaced again and again while its lock was awaited", path);
	return EXIT_ERRORS;
}

void lock_release(int id)
{
	if (id <= 0 || (unsigned)id > ARRAY_SIZE(g_held) || !g_held[id - 1].refs)
		return;
	struct held *h = &g_held[id - 1];
	if (--h->refs)
		return;
	close(h->fd);
	h->fd = -1;
}

int lock_refuse_record_locks(int fd, const char *path)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	struct stat st;
	char who[128];

	if (g_disabled || fstat(fd, &st))
		return 0;
	/* F_OFD_GETLK sees POSIX and OFD locks alike; F_GETLK is for kernels before 3.15 */
	if (fcntl(fd, F_OFD_GETLK, &fl)) {
		fl = (struct flock){ .l_type = F_WRLCK, .l_whence = SEEK_SET };
		if (fcntl(fd, F_GETLK, &fl))
			return 0;
	}
	if (fl.l_type == F_UNLCK)
		return 0;
	int pid = fl.l_pid > 0 ? fl.l_pid : fd_holder(&st, "OFDLCK");
	holder_text(pid, who, sizeof who);
	t_error("refuse.locked",
		"%s is locked by %s with %s record lock (fcntl), as QEMU locks the disk of a "
		"running virtual machine; refusing to write to it (--no-lock ignores locks)",
		path, who, fl.l_pid > 0 ? "a POSIX" : "an OFD");
	return EXIT_REFUSED;
}
