/* SPDX-License-Identifier: BSD-2-Clause */
#define _GNU_SOURCE /* pipe2 */
#include "tools/base/run.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int run_capture(const char *const argv[], char *out, size_t cap)
{
	int pipefd[2];
	size_t len = 0;

	if (cap)
		out[0] = 0;
	if (pipe2(pipefd, O_CLOEXEC))
		return 127;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return 127;
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDONLY);
		if (devnull >= 0)
			dup2(devnull, 0);
		dup2(pipefd[1], 1);
		dup2(pipefd[1], 2);
		execvp(argv[0], (char *const *)argv);
		dprintf(2, "%s: %s", argv[0], strerror(errno));
		_exit(127);
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
