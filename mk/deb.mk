# SPDX-License-Identifier: BSD-2-Clause
# make deb: the Debian package (debian/), built by dpkg-buildpackage from a copy of the tree
# into $(BUILD)/deb (tools/mkdeb.sh), lintian-checked.
DEB_OUT := $(BUILD)/deb
.PHONY: deb
deb:
	@tools/mkdeb.sh $(BUILD)
