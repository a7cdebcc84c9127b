from .kernels import scale_rows_kernel

# kernel variants held in a table: replace_hints gives the same kernel with other hints
SCALE_VARIANTS = {
    "one_cta": scale_rows_kernel.replace_hints(num_ctas=1),
}
