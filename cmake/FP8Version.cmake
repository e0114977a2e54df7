# Generates include/fp8/Version.inc in the build tree on every build, holding the
# project version and the git revision; the file is rewritten only when it
# changes, so an unchanged tree does not recompile anything.
set(FP8_VERSION_INC "${PROJECT_BINARY_DIR}/include/fp8/Version.inc")
add_custom_target(fp8-version-inc
  COMMAND ${CMAKE_COMMAND}
    -DFP8_SOURCE_DIR=${PROJECT_SOURCE_DIR}
    -DFP8_VERSION=${PROJECT_VERSION}
    -DFP8_OUTPUT=${FP8_VERSION_INC}
    -P ${PROJECT_SOURCE_DIR}/cmake/GenerateVersion.cmake
  BYPRODUCTS ${FP8_VERSION_INC}
  COMMENT "Checking fp8-mlir version header"
  VERBATIM)
