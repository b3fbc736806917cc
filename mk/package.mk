# The packages and release artifacts: packages, srpm-check, deb, rpm; the image, k8s and arm64 artifacts

# The .deb and the RPM from one compile: the RPM's build starts from the .deb's build tree, whose
# flags are the distribution's (dpkg-buildflags: hardening, fortify), so both ship one binary.
.PHONY: packages
packages: deb
	$(Q)$(MAKE) --no-print-directory rpm RPM_PREBUILT=$(abspath $(O)/deb/src/build)

# The source RPM rebuilt as a RHEL site would (rpmbuild --rebuild, in a directory of its own;
# --nodeps: this machine's toolchain): its binary must be the RPM's, byte for byte (not in CI: a
# whole compile; its last result is in docs/fleet.md)
.PHONY: srpm-check
srpm-check: rpm
	$(call msg,SRPM,$(O)/srpm-check)
	$(Q)rm -rf $(O)/srpm-check && mkdir -p $(O)/srpm-check/x $(O)/srpm-check/y
	$(Q)rpmbuild --rebuild --nodeps --define '_topdir $(abspath $(O)/srpm-check)' \
		$(if $(CROSS),--define 'slotscope_make_args ARCH=$(ARCH)' --define 'slotscope_strip $(CROSS)strip') \
		--target $(RPM_ARCH) $(O)/rpm/SRPMS/slotscope-$(VERSION)-*.src.rpm >$(O)/srpm-check/build.log 2>&1 || \
		{ tail -30 $(O)/srpm-check/build.log; exit 1; }
	$(Q)rpm2cpio $(O)/rpm/RPMS/*/slotscope-$(VERSION)-*.rpm | (cd $(O)/srpm-check/x && cpio -id --quiet)
	$(Q)rpm2cpio $(O)/srpm-check/RPMS/*/slotscope-$(VERSION)-*.rpm | (cd $(O)/srpm-check/y && cpio -id --quiet)
	$(Q)a=$$(sha256sum <$(O)/srpm-check/x/usr/sbin/slotscope) b=$$(sha256sum <$(O)/srpm-check/y/usr/sbin/slotscope); \
		[ "$$a" = "$$b" ] && echo "  SRPM     rebuilt: the same binary (sha256 $${a%% *})" || \
		{ echo "srpm-check: the rebuilt binary differs ($${a%% *} vs $${b%% *})"; exit 1; }
	$(Q)(cd $(O)/srpm-check/x && find . | sort) >$(O)/srpm-check/x.files && \
		(cd $(O)/srpm-check/y && find . | sort) >$(O)/srpm-check/y.files && \
		diff $(O)/srpm-check/x.files $(O)/srpm-check/y.files && echo "  SRPM     rebuilt: the same files"

# The Debian package, built from a copy of the tree (dpkg-buildpackage writes beside it):
# $(O)/deb/slotscope_*.deb, its lintian report, and its files unpacked in $(O)/deb/root.
deb: | deps-pkg
	$(call msg,DEB,$(O)/deb)
	$(Q)rm -rf $(O)/deb && mkdir -p $(O)/deb/src
	$(Q)tar -c --exclude=./build --exclude='./build-*' --exclude=./.git --exclude='./$(O)' . | tar -x -C $(O)/deb/src
	$(Q)echo '$(REVISION)' >$(O)/deb/src/.revision
	$(Q)cd $(O)/deb/src && dpkg-buildpackage -b -us -uc -a$(DEB_ARCH) $(if $(CROSS),-d) >../build.log 2>&1 || \
		{ tail -30 ../build.log; exit 1; }
	$(Q)lintian $(O)/deb/slotscope_*.deb > $(O)/deb/lintian.txt 2>&1; \
		if grep -q '^E:' $(O)/deb/lintian.txt; then cat $(O)/deb/lintian.txt; exit 1; fi
	$(Q)dpkg-deb -x $(O)/deb/slotscope_*.deb $(O)/deb/root

# The RPM (RHEL 9 family), built from a tarball of the tree by Debian's rpmbuild: $(O)/rpm/RPMS/
# ARCH/slotscope-*.rpm and its rpmlint report. --nodeps: the build uses this machine's toolchain.
# RPM_PREBUILT=DIR starts its build from a build tree made already (`packages`: the .deb's), whose
# objects are newer than the tarball's sources, so nothing compiles twice; checked by the build
# ID of the RPM's binary, which must be that tree's.
RPM_ARCH := $(if $(filter arm64,$(ARCH)),aarch64,x86_64)
.PHONY: rpm
rpm: | deps-pkg
	$(call msg,RPM,$(O)/rpm)
	$(Q)rm -rf $(O)/rpm && mkdir -p $(O)/rpm/SOURCES $(O)/rpm/SPECS
	$(Q)mkdir -p $(O)/rpm/rev && echo '$(REVISION)' >$(O)/rpm/rev/.revision
	$(Q)tar -c --exclude=./build --exclude='./build-*' --exclude=./.git --exclude='./$(O)' \
		--transform 's,^\.,slotscope-$(VERSION),' . -C $(abspath $(O)/rpm/rev) ./.revision | \
		gzip -n >$(O)/rpm/SOURCES/slotscope-$(VERSION).tar.gz
	$(Q)sed 's/@VERSION@/$(VERSION)/' packaging/rpm/slotscope.spec >$(O)/rpm/SPECS/slotscope.spec
	$(Q)rpmbuild -ba --nodeps --define '_topdir $(abspath $(O)/rpm)' \
		$(if $(CROSS),--define 'slotscope_make_args ARCH=$(ARCH)' --define 'slotscope_strip $(CROSS)strip') \
		$(if $(RPM_PREBUILT),--define 'slotscope_prebuilt $(RPM_PREBUILT)') \
		--target $(RPM_ARCH) $(O)/rpm/SPECS/slotscope.spec >$(O)/rpm/build.log 2>&1 || { tail -30 $(O)/rpm/build.log; exit 1; }
	$(Q)$(if $(RPM_PREBUILT),rpm2cpio $(O)/rpm/RPMS/*/slotscope-*.rpm | (cd $(O)/rpm && cpio -id --quiet ./usr/sbin/slotscope) && \
		[ "$$(readelf -n $(RPM_PREBUILT)/slotscope | grep 'Build ID')" = "$$(readelf -n $(O)/rpm/usr/sbin/slotscope | grep 'Build ID')" ] || \
		{ echo "rpm: its binary is not the one $(RPM_PREBUILT) linked (another link: see $(O)/rpm/build.log)"; exit 1; })
	$(Q)rpmlint -r packaging/rpm/slotscope.rpmlintrc $(O)/rpm/RPMS/*/slotscope-*.rpm >$(O)/rpm/rpmlint.txt 2>&1; \
		if grep -q ' E: ' $(O)/rpm/rpmlint.txt; then cat $(O)/rpm/rpmlint.txt; exit 1; fi

# The container image for amd64 and arm64, an OCI image layout (tools/container/build-oci); no
# daemon or registry: skopeo copy --all oci:$(O)/oci:$(VERSION) docker://REGISTRY/slotscope:$(VERSION)
.PHONY: image
image: $(O)/slotscope | deps-test
	$(Q)$(MAKE) --no-print-directory ARCH=arm64 O=$(O)/arm64 all
	$(call msg,OCI,$(O)/oci)
	$(Q)tools/container/build-oci $(O)/oci $(VERSION) amd64=$(O)/slotscope arm64=$(O)/arm64/slotscope >/dev/null

# The Kubernetes objects made from the rule files and the dashboard (PrometheusRule, ConfigMap),
# and the kustomize base and overlays (build/k8s/base, build/k8s/overlays/*): IMAGE is where the
# image was pushed (REGISTRY/slotscope), pinned to the digest of make image's index when built
IMAGE ?=
.PHONY: k8s
k8s: | deps-test
	$(call msg,K8S,$(O)/k8s)
	$(Q)tools/container/gen-k8s $(O)/k8s $(O)/oci $(VERSION) $(IMAGE)

# The arm64 artifacts, cross-built here (ARCH=arm64, under $(O)/arm64): the binary and its test
# build (for the arm64 VM), the .deb and the RPM (for the host tests that read them)
.PHONY: arm64
arm64: | deps-test
	$(Q)$(MAKE) --no-print-directory ARCH=arm64 O=$(O)/arm64 all $(O)/arm64/slotscope-faults packages
