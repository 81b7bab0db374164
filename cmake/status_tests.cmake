# Every CUDA library's status in GPUH_CHECK (included from tests/CMakeLists.txt):
#   host.status   tests/test_status_host.c: the name tables, the report, an NVRTC
#                 compile error; no device (links the libraries, not libcuda)
#   gpu.status    tests/test_status_gpu.c: a real failing call of each library,
#                 driver API included (77 without a device)
# Both C99 with -Werror; NCCL's part where gpuh found NCCL (cmake/multi_gpu.cmake).
gpuh_program(test_status_host HEADER_ONLY ${PROJECT_SOURCE_DIR}/tests/test_status_host.c)
target_link_libraries(test_status_host PRIVATE CUDA::cublas CUDA::cufft CUDA::curand CUDA::cusparse
                                               CUDA::cusolver CUDA::nvrtc)
gpuh_add_test(host.status host test_status_host)
gpuh_program(test_status_gpu HEADER_ONLY ${PROJECT_SOURCE_DIR}/tests/test_status_gpu.c)
target_link_libraries(test_status_gpu PRIVATE CUDA::cublas CUDA::cufft CUDA::curand CUDA::cusparse
                                              CUDA::cusolver CUDA::nvrtc CUDA::cuda_driver)
gpuh_add_test(gpu.status gpu test_status_gpu)
if(GPUH_NCCL_INCLUDE_DIR AND GPUH_NCCL_LIBRARY)
  foreach(t test_status_host test_status_gpu)
    target_include_directories(${t} SYSTEM PRIVATE ${GPUH_NCCL_INCLUDE_DIR})
    target_link_libraries(${t} PRIVATE ${GPUH_NCCL_LIBRARY})
    target_compile_definitions(${t} PRIVATE GPUH_TEST_HAVE_NCCL)
  endforeach()
endif()
# Without an NVIDIA driver there is no libcuda.so.1, so test_status_gpu (linked to
# the driver API) cannot start: that is the no-device case, a skip like exit 77.
set_tests_properties(gpu.status PROPERTIES SKIP_REGULAR_EXPRESSION "libcuda.so.1: cannot open shared object file")
# host.status.generic   tests/test_status_generic.c (C11 _Generic) + _cpp.cpp (C++ overloads):
#                       GPUH_CHECK_STATUS picks each library's report by the status's type
gpuh_program(test_status_generic HEADER_ONLY ${PROJECT_SOURCE_DIR}/tests/test_status_generic.c
                                             ${PROJECT_SOURCE_DIR}/tests/test_status_generic_cpp.cpp)
set_target_properties(test_status_generic PROPERTIES C_STANDARD 11)
target_link_libraries(test_status_generic PRIVATE CUDA::cufft CUDA::curand CUDA::nvrtc)
gpuh_add_test(host.status.generic host test_status_generic)
