import Control.Monad (forM_)
import Data.Array.IO (IOUArray, newArray, readArray, writeArray)

-- Allocates and touches 100 MiB (an unboxed array of 100 * 2^17 Ints), live until the
-- answer is printed.
main :: IO ()
main = do
  [a, b] <- map read . words <$> getLine :: IO [Integer]
  let n = 100 * 2 ^ (17 :: Int)
  arr <- newArray (0, n - 1) 1 :: IO (IOUArray Int Int)
  forM_ [0, 512 .. n - 1] $ \i -> writeArray arr i i
  v <- readArray arr (n - 512)
  if v /= n - 512 then error "lost a write" else print (a + b)
