"""torchlite.linalg: PyTorch's ``torch.linalg`` namespace.

Every name is a generated operator of native_functions.yaml, with PyTorch's signature, keywords and
``out=``, bound in ``torchlite._C._linalg`` (``python_module: linalg``) as PyTorch binds them in
``torch._C._linalg``.
"""
from torchlite._C import _LinAlgError as LinAlgError, _linalg

vector_norm = _linalg.linalg_vector_norm
cross = _linalg.linalg_cross
vecdot = _linalg.linalg_vecdot
multi_dot = _linalg.linalg_multi_dot
matmul = _linalg.linalg_matmul

lu_factor_ex = _linalg.linalg_lu_factor_ex
lu_factor = _linalg.linalg_lu_factor
lu = _linalg.linalg_lu
lu_solve = _linalg.linalg_lu_solve
solve_triangular = _linalg.linalg_solve_triangular
det = _linalg.linalg_det
slogdet = _linalg.linalg_slogdet
solve_ex = _linalg.linalg_solve_ex
solve = _linalg.linalg_solve
inv_ex = _linalg.linalg_inv_ex
inv = _linalg.linalg_inv
cholesky_ex = _linalg.linalg_cholesky_ex
cholesky = _linalg.linalg_cholesky
qr = _linalg.linalg_qr
householder_product = _linalg.linalg_householder_product
eigh = _linalg.linalg_eigh
eigvalsh = _linalg.linalg_eigvalsh
eig = _linalg.linalg_eig
eigvals = _linalg.linalg_eigvals
svd = _linalg.linalg_svd
svdvals = _linalg.linalg_svdvals
matrix_power = _linalg.linalg_matrix_power
matrix_exp = _linalg.linalg_matrix_exp
pinv = _linalg.linalg_pinv
matrix_rank = _linalg.linalg_matrix_rank
matrix_norm = _linalg.linalg_matrix_norm
norm = _linalg.linalg_norm
cond = _linalg.linalg_cond
tensorinv = _linalg.linalg_tensorinv
tensorsolve = _linalg.linalg_tensorsolve
vander = _linalg.linalg_vander
lstsq = _linalg.linalg_lstsq


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """The diagonal (a view) of each matrix of `A`: `torchlite.diagonal` with matrix defaults."""
    from torchlite._C._ops import diagonal  # imported here: no module-level name torch.linalg lacks
    return diagonal(A, offset, dim1, dim2)


__all__ = ["LinAlgError", "cholesky", "cholesky_ex", "cond", "cross", "det", "diagonal", "eigh", "eigvalsh",
           "householder_product", "inv", "inv_ex", "lstsq", "lu", "lu_factor", "lu_factor_ex", "lu_solve",
           "matmul", "matrix_exp", "matrix_norm", "matrix_power", "matrix_rank", "multi_dot", "norm", "pinv", "qr", "slogdet", "solve",
           "solve_ex", "solve_triangular", "svd", "svdvals", "tensorinv", "tensorsolve", "vander", "vecdot",
           "vector_norm"]
