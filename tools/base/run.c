/* SPDX-License-Identifier: BSD-2-Clause */
#define _GNU_SOURCE /* pipe2 */
#include "tools/base/run.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* Starts argv with stdin /dev/null and stdout and stderr the pipe's end w. posix_spawnp (a
 * vfork) rather than fork: a fork copies the page tables of the installer's buffers and then
 * faults on each page it writes again (mtools runs around ten times for an add), which costs
 * far more on some virtual machines than on bare metal. Returns the child's pid, or -1 with
 * out[cap] saying why. */
static pid_t start(const char *const argv[], int w, char *out, size_t cap)
{
	posix_spawn_file_actions_t fa;
	int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC), err;
	pid_t pid = -1;

	if ((err = posix_spawn_file_actions_init(&fa)))
		goto out;
	if ((devnull < 0 || !(err = posix_spawn_file_actions_adddup2(&fa, devnull, 0))) &&
	    !(err = posix_spawn_file_actions_adddup2(&fa, w, 1)) &&
	    !(err = posix_spawn_file_actions_adddup2(&fa, w, 2)))
		err = posix_spawnp(&pid, argv[0], &fa, NULL, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
out:
	if (devnull >= 0)
		close(devnull);
	if (err) {
		if (cap)
			snprintf(out, cap, "%s: %s", argv[0], strerror(err));
		return -1;
	}
	return pid;
}

int run_capture(const char *const argv[], char *out, size_t cap)
{
	int pipefd[2];
	size_t len = 0;

	if (cap)
		out[0] = 0;
	if (pipe2(pipefd, O_CLOEXEC))
		return 127;
	fflush(NULL);
	pid_t pid = start(argv, pipefd[1], out, cap);
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return 127;
	}
	close(pipefd[1]);
	for (;;) {
		char buf[1024];
		ssize_t n = read(pipefd[0], buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (ssize_t i = 0; i < n && cap; i++)
			if (len + 1 < cap)
				out[len++] = buf[i];
	}
	close(pipefd[0]);
	if (cap) {
		while (len && (out[len - 1] == '\n' || out[len - 1] == '\r'))
			len--;
		out[len] = 0;
		/* one line is easier to read inside a sentence */
		for (size_t i = 0; i < len; i++)
			if (out[i] == '\n')
				out[i] = ';';
	}
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 127;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

const char *run_failure_text(int status, const char *out, char *buf, size_t cap)
{
	if (status > 128)
		snprintf(buf, cap, "killed by signal %d (%s)%s%s", status - 128, strsignal(status - 128),
			 *out ? ": " : "", out);
	else if (status == 127 && *out)
		snprintf(buf, cap, "not started: %s", out);
	else if (*out)
		snprintf(buf, cap, "exit %d: %s", status, out);
	else
		snprintf(buf, cap, "exit %d without a word of why", status);
	return buf;
}
