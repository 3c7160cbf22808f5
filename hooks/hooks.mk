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

# The kernel-install plugin (hooks/90-anysector.install), with `make install` and so in the
# package: PREFIX/lib/kernel/install.d, where kernel-install looks when PREFIX is /usr (with
# another PREFIX, link it into /etc/kernel/install.d).
.PHONY: install-plugin
install-plugin:
	install -D -m 755 hooks/90-anysector.install \
		$(DESTDIR)$(PREFIX)/lib/kernel/install.d/90-anysector.install
install:: install-plugin
