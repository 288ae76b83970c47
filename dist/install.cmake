# Install-time part of dist/CMakeLists.txt: writes the systemd unit with the
# paths of this installation's prefix, and installs the default
# configuration unless one is already there (an operator's edits survive a
# reinstall). Both honour DESTDIR and are listed in install_manifest.txt,
# which `make uninstall` reads.
if(CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  set(etc /etc) # GNU convention: /usr installs configure /etc
else()
  set(etc ${CMAKE_INSTALL_PREFIX}/etc)
endif()
set(CUZK_BINDIR ${CMAKE_INSTALL_PREFIX}/bin)
set(CUZK_CONFIG ${etc}/cuzk/cuzk.toml)
set(CUZK_DOCDIR ${CMAKE_INSTALL_PREFIX}/${CUZK_DOCDIR_REL})
configure_file(${CUZK_DIST_SOURCE}/cuzk-daemon.service.in ${CUZK_DIST_BINARY}/cuzk-daemon.service
               @ONLY)
file(INSTALL ${CUZK_DIST_BINARY}/cuzk-daemon.service
     DESTINATION ${CMAKE_INSTALL_PREFIX}/lib/systemd/system)
if(EXISTS "$ENV{DESTDIR}${CUZK_CONFIG}")
  message(STATUS "Keeping: $ENV{DESTDIR}${CUZK_CONFIG}")
  list(APPEND CMAKE_INSTALL_MANIFEST_FILES "${CUZK_CONFIG}")
else()
  file(INSTALL ${CUZK_DEFAULT_CONFIG} DESTINATION ${etc}/cuzk)
endif()
