# `cpack --config build/CPackConfig.cmake`: build/kvmbench_<version>_amd64.deb
# of what `cmake --install` installs, under /usr. Its Depends come from the
# Debian libraries the binaries link (dpkg-shlibdeps, package dpkg-dev);
# what kvmbench runs rather than links is recommended.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME kvmbench)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "KVM memory-management and confidential-computing benchmarks")
set(CPACK_PACKAGE_CONTACT "kvmbench developers")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_DIRECTORY ${CMAKE_BINARY_DIR})
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # kvmbench_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# QEMU boots the guests, kmod reloads kvm_amd, virtiofsd serves the lab,
# kexec-tools boots `kvmbench ab`'s kernels.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "qemu-system-x86, kmod, kexec-tools")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "virtiofsd")
include(CPack)
# `cpack` and `cmake --install` take what is built and build nothing more:
# the package test (tests/CMakeLists.txt) depends on exactly what is
# installed, not on every test and benchmark program.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)
