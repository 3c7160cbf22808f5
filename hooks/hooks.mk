# SPDX-License-Identifier: BSD-2-Clause
# The Debian kernel hooks (hooks/): anysector-update and its man page, /etc/default/anysector and
# zz-anysector as the kernel postinst.d/postrm.d and initramfs post-update.d hook. debian/rules
# installs them into the package (`make install` leaves /etc alone).
.PHONY: install-hooks
install-hooks:
	install -D -m 755 hooks/anysector-update $(DESTDIR)$(PREFIX)/sbin/anysector-update
	install -D -m 644 hooks/anysector-update.8 $(DESTDIR)$(PREFIX)/share/man/man8/anysector-update.8
	install -D -m 644 hooks/default $(DESTDIR)/etc/default/anysector
	install -D -m 755 hooks/zz-anysector $(DESTDIR)/etc/kernel/postinst.d/zz-anysector
	install -D -m 755 hooks/zz-anysector $(DESTDIR)/etc/kernel/postrm.d/zz-anysector
	install -D -m 755 hooks/zz-anysector $(DESTDIR)/etc/initramfs/post-update.d/zz-anysector
