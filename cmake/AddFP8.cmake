# Helpers shared by every fp8-mlir library.

# add_fp8_library(<name> <sources...> [DEPENDS <targets...>] [LINK_LIBS <libs...>])
#
# A static library that links the shared libMLIR.so (see the top-level
# CMakeLists.txt), is installed and exported as FP8MLIR::<name>, and can be
# used from the build tree under the same namespaced name.
function(add_fp8_library name)
  cmake_parse_arguments(ARG "" "" "DEPENDS;LINK_LIBS" ${ARGN})
  add_mlir_library(${name}
    ${ARG_UNPARSED_ARGUMENTS}
    DISABLE_INSTALL
    EXCLUDE_FROM_LIBMLIR
    DEPENDS ${ARG_DEPENDS}
    LINK_LIBS PUBLIC ${ARG_LINK_LIBS} MLIR)
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:include>)
  add_library(FP8MLIR::${name} ALIAS ${name})
  set_property(GLOBAL APPEND PROPERTY FP8_EXPORTED_LIBRARIES ${name})
endfunction()
