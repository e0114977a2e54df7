# -*- Python -*-
# Runs the GoogleTest binaries of unittests/ as part of the lit suite.

import os

import lit.formats

config.name = "FP8MLIR-Unit"
config.suffixes = []
config.test_source_root = os.path.join(config.fp8_obj_root, "unittests")
config.test_exec_root = config.test_source_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
# One lit test per GoogleTest case (not per shard), so the summary counts
# unit tests one by one.
lit_config.gtest_sharding = False
if config.fp8_sanitizers:
    config.environment["ASAN_OPTIONS"] = "detect_container_overflow=0:allow_user_poisoning=0:detect_leaks=1"
    config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
