import Control.Concurrent (forkIO)
import Control.Concurrent.MVar (newEmptyMVar, putMVar, takeMVar)
import Control.Exception (evaluate)
import Control.Monad (forM)

-- Four threads each sum a quarter of 1..4000000; the total is checked before a+b.
main :: IO ()
main = do
  [a, b] <- map read . words <$> getLine :: IO [Integer]
  let n = 4000000 :: Int
  vars <- forM [0 .. 3] $ \t -> do
    v <- newEmptyMVar
    _ <- forkIO $ evaluate (sum [t * n `div` 4 + 1 .. (t + 1) * n `div` 4]) >>= putMVar v
    return v
  parts <- mapM takeMVar vars
  if sum parts /= n * (n + 1) `div` 2 then error "wrong sum" else print (a + b)
