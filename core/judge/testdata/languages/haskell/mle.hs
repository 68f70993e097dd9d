import Control.Monad (forM_)
import Data.Array.IO (IOUArray, newArray, readArray, writeArray)

-- Allocates and touches 1 GiB (an unboxed array of 2^27 Ints).
main :: IO ()
main = do
  [a, b] <- map read . words <$> getLine :: IO [Integer]
  let n = 2 ^ (27 :: Int)
  arr <- newArray (0, n - 1) 0 :: IO (IOUArray Int Int)
  forM_ [0, 512 .. n - 1] $ \i -> writeArray arr i i
  v <- readArray arr (n - 512)
  print (a + b + fromIntegral (v - v))
