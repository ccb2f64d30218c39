/*
 * cooperative_groups.h - the Cooperative Groups API for
 * scripts/device-only.py (see cuda_runtime.h here): the groups, partitions
 * and collectives the lessons use, declared for clang's CUDA mode.
 */
#ifndef DEVICE_ONLY_COOPERATIVE_GROUPS_H
#define DEVICE_ONLY_COOPERATIVE_GROUPS_H
#include "cuda_runtime.h"
namespace cooperative_groups {
class thread_group {
public:
    __device__ unsigned long long size() const;
    __device__ unsigned long long num_threads() const;
    __device__ unsigned long long thread_rank() const;
    __device__ void sync() const;
};
class thread_block : public thread_group {
public:
    __device__ dim3 group_index() const;
    __device__ dim3 thread_index() const;
    __device__ dim3 group_dim() const;
    __device__ dim3 dim_threads() const;
};
class coalesced_group : public thread_group {
public:
    __device__ unsigned long long meta_group_rank() const;
    __device__ unsigned long long meta_group_size() const;
    template <typename T> __device__ T shfl(T v, unsigned src) const;
    template <typename T> __device__ T shfl_up(T v, unsigned d) const;
    template <typename T> __device__ T shfl_down(T v, unsigned d) const;
    __device__ unsigned ballot(int) const;
    __device__ int any(int) const;
    __device__ int all(int) const;
    template <typename T> __device__ unsigned match_any(T) const;
    template <typename T> __device__ unsigned match_all(T, int &) const;
};
template <unsigned N, typename Parent = void>
class thread_block_tile : public thread_group {
public:
    template <typename P> __device__ thread_block_tile(const thread_block_tile<N, P> &);
    __device__ thread_block_tile();
    __device__ unsigned long long meta_group_rank() const;
    __device__ unsigned long long meta_group_size() const;
    template <typename T> __device__ T shfl(T v, int src) const;
    template <typename T> __device__ T shfl_up(T v, unsigned d) const;
    template <typename T> __device__ T shfl_down(T v, unsigned d) const;
    template <typename T> __device__ T shfl_xor(T v, unsigned m) const;
    __device__ unsigned ballot(int) const;
    __device__ int any(int) const;
    __device__ int all(int) const;
    template <typename T> __device__ unsigned match_any(T) const;
    template <typename T> __device__ unsigned match_all(T, int &) const;
};
__device__ thread_block this_thread_block();
__device__ coalesced_group coalesced_threads();
__device__ thread_group tiled_partition(const thread_group &, unsigned);
template <unsigned N, typename P> __device__ thread_block_tile<N, P> tiled_partition(const P &);
__device__ coalesced_group labeled_partition(const coalesced_group &, int);
template <unsigned N, typename P> __device__ coalesced_group labeled_partition(const thread_block_tile<N, P> &, int);
__device__ coalesced_group binary_partition(const coalesced_group &, bool);
template <unsigned N, typename P> __device__ coalesced_group binary_partition(const thread_block_tile<N, P> &, bool);
template <typename G> __device__ void sync(const G &);
template <typename T> struct plus { __device__ T operator()(T a, T b) const; };
template <typename T> struct less { __device__ T operator()(T a, T b) const; };
template <typename T> struct greater { __device__ T operator()(T a, T b) const; };
template <typename T> struct bit_and { __device__ T operator()(T a, T b) const; };
template <typename T> struct bit_or { __device__ T operator()(T a, T b) const; };
template <typename T> struct bit_xor { __device__ T operator()(T a, T b) const; };
}
#endif
