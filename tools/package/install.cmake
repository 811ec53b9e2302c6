# What `cmake --install` lays out and how CPack makes a Debian package of it (docs/install.md).
# knobsim reads no file of the checkout at run time (the GPU catalog and the cGPU models are
# compiled in; a scenario's recorded traffic is found beside the scenario), so the binary, the
# documentation and the bundled scenarios are all an installed copy needs.
include(GNUInstallDirs)

install(TARGETS knobsim RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The scenarios keep their folders: recorded-traffic/ and gate-example/ refer to files beside them.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/scenarios/
        DESTINATION ${CMAKE_INSTALL_DATADIR}/knobsim/scenarios)
# The documentation keeps the checkout's layout under share/doc/knobsim, so the pages' links to
# one another (docs/*.md, ../models/README.md, the README) still resolve.
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs
        PATTERN "knobsim.1" EXCLUDE)
install(FILES ${PROJECT_SOURCE_DIR}/models/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR}/models)
install(FILES ${PROJECT_SOURCE_DIR}/docs/knobsim.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

# The Debian package: `cpack -G DEB --config build/release/CPackConfig.cmake` (tools/package-check.sh).
set(CPACK_PACKAGE_NAME knobsim)
set(CPACK_PACKAGE_VENDOR "knobsim")
set(CPACK_PACKAGE_CONTACT "knobsim maintainers <maintainers@users.noreply.a-seed-2485e331.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "simulator of Kubernetes clusters whose GPUs are shared between pods")
# The extended description: one paragraph, its lines under 80 columns as Debian's policy asks.
string(CONCAT CPACK_PACKAGE_DESCRIPTION
       "knobsim is a discrete-event simulator of Kubernetes clusters with shared GPUs\n"
       "(Alibaba ACK GPU sharing with cGPU, HAMi, NVIDIA time-slicing). It predicts\n"
       "what turning a knob - cGPU POLICY, memory isolation, quotas, card placement,\n"
       "replicas, nodes, traffic - does to latency, errors and GPU utilization,\n"
       "before anyone turns it in production. The bundled scenarios are in\n"
       "/usr/share/knobsim/scenarios, the documentation in /usr/share/doc/knobsim.")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_STRIP_FILES ON)
# dpkg-shlibdeps (dpkg-dev, which build-essential brings) computes Depends from the libraries the
# binary links (yaml-cpp, fmt, libgomp, libstdc++), so it names the versions of the distribution
# that built it.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_GENERATOR DEB)
include(CPack)
