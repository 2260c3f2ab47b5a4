# Generator for tests/reference/multiclass_data_*.csv (run from the repository root):
#   Rscript /tmp/mc/make_multiclass_data.R
# Scores: latent logits z[i, k] = signal * 1[y_i == k] + offset_k + N(0, noise^2), p = softmax(z)
# (a multinomial-logit model with noise). Numbers are written with the shortest of 15/16/17
# significant digits that reads back to the same double.
out_dir <- "tests/reference"

fmt <- function(x) {
  vapply(x, function(v) {
    for (d in 15:17) {
      s <- sprintf(paste0("%.", d, "g"), v)
      if (as.numeric(s) == v) return(s)
    }
    s
  }, character(1))
}

softmax <- function(z) { e <- exp(z - apply(z, 1, max)); e / rowSums(e) }

latent <- function(y, labels, signal, noise, offset = rep(0, length(labels))) {
  n <- length(y); K <- length(labels)
  z <- matrix(rnorm(n * K, sd = noise), n, K)
  for (k in seq_len(K)) z[, k] <- z[, k] + offset[k] + signal * (y == labels[k])
  z
}

write_set <- function(name, y, P, Q = NULL, extra = NULL) {
  labels <- colnames(P)
  df <- data.frame(y = y, stringsAsFactors = FALSE)
  if (!is.null(extra)) for (nm in names(extra)) df[[nm]] <- extra[[nm]]
  for (k in labels) df[[paste0("p_", k)]] <- fmt(P[, k])
  if (!is.null(Q)) for (k in labels) df[[paste0("q_", k)]] <- fmt(Q[, k])
  path <- file.path(out_dir, paste0("multiclass_data_", name, ".csv"))
  write.csv(df, path, row.names = FALSE, quote = FALSE)
  cat("wrote", path, nrow(df), "rows\n")
}

# 1. K = 3, string labels, balanced n = 60, two models (p strong, q weak).
set.seed(101)
lab <- c("a", "b", "c")
y <- rep(lab, each = 20)
y <- y[sample.int(length(y))]
P <- softmax(latent(y, lab, signal = 1.5, noise = 1.0)); colnames(P) <- lab
Q <- softmax(latent(y, lab, signal = 0.6, noise = 1.0, offset = c(0.3, 0, -0.3))); colnames(Q) <- lab
write_set("k3_balanced", y, P, Q)

# 2. K = 4, integer labels 1..4, imbalanced 40/15/8/5, two models.
set.seed(202)
lab <- 1:4
y <- rep(lab, times = c(40, 15, 8, 5))
y <- y[sample.int(length(y))]
P <- softmax(latent(y, lab, signal = 1.2, noise = 1.0, offset = c(1.0, 0.2, -0.3, -0.6))); colnames(P) <- lab
Q <- softmax(latent(y, lab, signal = 0.5, noise = 1.2, offset = c(0.5, 0, 0, 0))); colnames(Q) <- lab
write_set("k4_imbalanced", y, P, Q)

# 3. K = 5, string labels, n = 100 (20 per class), probabilities rounded to 1 decimal (heavy ties;
#    rows then do NOT sum to 1 exactly; not renormalised).
set.seed(303)
lab <- c("a", "b", "c", "d", "e")
y <- rep(lab, each = 20)
y <- y[sample.int(length(y))]
P <- round(softmax(latent(y, lab, signal = 1.0, noise = 1.0)), 1); colnames(P) <- lab
write_set("k5_ties", y, P)

# 4. K = 3, integer labels 1..3, n = 45 (15 each); class 3 is perfectly separated by p_3
#    (min of p_3 over class-3 rows > max of p_3 over other rows); classes 1 and 2 overlap.
set.seed(404)
lab <- 1:3
y <- rep(lab, each = 15)
y <- y[sample.int(length(y))]
z <- latent(y, lab, signal = 1.0, noise = 1.0)
z[, 3] <- ifelse(y == 3, 3, -2) + rnorm(length(y), sd = 0.4)
P <- softmax(z); colnames(P) <- lab
stopifnot(min(P[y == 3, 3]) > max(P[y != 3, 3]))
write_set("k3_separated", y, P)

# 5. iris: nnet::multinom(Species ~ Sepal.Length + Sepal.Width), fitted probabilities.
if (requireNamespace("nnet", quietly = TRUE)) {
  fit <- nnet::multinom(Species ~ Sepal.Length + Sepal.Width, data = datasets::iris, trace = FALSE,
                          maxit = 1000)
  P <- fitted(fit)
  stopifnot(identical(colnames(P), levels(iris$Species)))
  write_set("iris", as.character(iris$Species), P,
            extra = list(Sepal.Length = iris$Sepal.Length, Sepal.Width = iris$Sepal.Width))
  cat("multinom converged:", fit$convergence == 0, " nnet", as.character(packageVersion("nnet")), "\n")
}
